// Builds the Fastify app: plugins in order (database, services, auth, docs), the routes,
// the web app, and the one error handler that maps every failure to an ApiError body.
import { constants as zlibConstants } from 'node:zlib';
import compress from '@fastify/compress';
import Fastify, { type FastifyError, type FastifyInstance, LogController } from 'fastify';
import { hasZodFastifySchemaValidationErrors, serializerCompiler } from 'fastify-type-provider-zod';
import { type Config, POOL_SIZE } from './config/env.ts';
import authPlugin from './plugins/auth.plugin.ts';
import databasePlugin from './plugins/database.plugin.ts';
import idleConnectionsPlugin from './plugins/idle-connections.plugin.ts';
import jsonBodiesPlugin from './plugins/json-bodies.plugin.ts';
import livePlugin from './plugins/live.plugin.ts';
import openapiPlugin from './plugins/openapi.plugin.ts';
import readCachePlugin from './plugins/read-cache.plugin.ts';
import readRoutingPlugin from './plugins/read-routing.plugin.ts';
import requestBodiesPlugin from './plugins/request-bodies.plugin.ts';
import securityHeadersPlugin from './plugins/security-headers.plugin.ts';
import servicesPlugin from './plugins/services.plugin.ts';
import statsdPlugin from './plugins/statsd.plugin.ts';
import storableRequestPlugin, {
  storableValidatorCompiler,
} from './plugins/storable-request.plugin.ts';
import uploadConnectionsPlugin from './plugins/upload-connections.plugin.ts';
import webPlugin from './plugins/web.plugin.ts';
import type { Database } from './repositories/database.ts';
import compareRoutes from './routes/compare/compare.routes.ts';
import eventsRoutes from './routes/events/events.routes.ts';
import gatesRoutes from './routes/gates/gates.routes.ts';
import healthRoutes from './routes/health/health.routes.ts';
import ingestRoutes from './routes/ingest/ingest.routes.ts';
import otlpRoutes from './routes/otlp/otlp.routes.ts';
import projectsRoutes from './routes/projects/projects.routes.ts';
import prometheusWriteRoutes from './routes/prometheus/prometheus-write.routes.ts';
import reportsRoutes from './routes/reports/reports.routes.ts';
import { recordRoutes } from './routes/route-table.ts';
import liveRoutes from './routes/runs/live.routes.ts';
import metricsRoutes from './routes/runs/metrics.routes.ts';
import perfettoRoutes from './routes/runs/perfetto.routes.ts';
import resultsRoutes from './routes/runs/results.routes.ts';
import runsRoutes from './routes/runs/runs.routes.ts';
import tailRoutes from './routes/runs/tail.routes.ts';
import selfMetricsRoutes from './routes/self-metrics.routes.ts';
import { asAppError } from './services/failure.ts';

export interface AppOptions {
  /** An open database to use instead of opening one from the config (tests). */
  database?: Database;
  /** Directory of the built web app; undefined serves the API only. */
  webRoot?: string | undefined;
  logger?: boolean;
  /** Keep the embedded database in memory rather than in config.dataDir (tests). */
  inMemory?: boolean;
  /** Overrides config.statsdPort; 'ephemeral' listens on free ports (app.statsd.udpPort). */
  statsdPort?: number | 'ephemeral';
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger === false ? false : { level: config.logLevel },
    bodyLimit: Math.min(config.maxBatchBytes, 64 * 1024 * 1024),
    // A whole request must arrive within this (Node answers 408); a body that stalls is cut
    // sooner by the request-bodies plugin (MESHBENCH_BODY_TIMEOUT_MS). Given to Node when the
    // server is made (`http`): Fastify also sets it on the server afterwards, which Node 20
    // does not act on (a body trickled for 70 s past a 1 s timeout was answered 200). Node
    // looks for requests past it every connectionsCheckingInterval (30 s by default): at
    // most half the timeout, so that a short one is not overshot several times over.
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(30_000, Math.ceil(config.requestTimeoutMs / 2)),
    },
    // No limit on a plugin's start: the database plugin migrates, and migrating an embedded
    // database from nothing (or a large one through a migration) outlasts Fastify's 10 s on a
    // busy machine; boot then failed with AVV_ERR_PLUGIN_EXEC_TIMEOUT.
    pluginTimeout: 0,
    // One line per request only when asked for (debug): a runner posts thousands of batches.
    logController: new LogController({
      disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace',
    }),
  });
  app.setValidatorCompiler(storableValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler());
  // Set on SIGTERM (server.ts); /health/ready reads it.
  app.decorate('lifecycle', {
    draining: false,
    demo: { state: 'off' as const, loaded: 0, total: 0 },
  });
  recordRoutes(app);
  await app.register(idleConnectionsPlugin);
  await app.register(securityHeadersPlugin);
  await app.register(storableRequestPlugin);

  await app.register(databasePlugin, {
    databaseUrl: config.databaseUrl,
    databaseReadUrl: config.databaseReadUrl,
    readMaxLagMs: config.readMaxLagMs,
    poolSize: POOL_SIZE,
    uploadConnections: config.uploadConnections,
    dataDir: options.inMemory ? undefined : config.dataDir,
    ...(options.database ? { database: options.database } : {}),
  });
  await app.register(servicesPlugin, {
    maxBatchBytes: config.maxBatchBytes,
    maxConcurrentBatches: config.maxConcurrentBatches,
    maxConcurrentBatchesPerProject: config.maxConcurrentBatchesPerProject,
    maxConcurrentResultUploads: config.maxConcurrentResultUploads,
    maxConcurrentResultUploadsPerProject: config.maxConcurrentResultUploadsPerProject,
    maxConcurrentOtlp: config.maxConcurrentOtlp,
    otlpMaxBytes: config.otlpMaxBytes,
    adminToken: config.adminToken,
    unmatchedRetentionMs: config.unmatchedRetentionMs,
    unmatchedMaxPoints: config.unmatchedMaxPoints,
    alertsRecheckMs: config.alertsRecheckMs,
    retentionMs: config.retentionMs,
  });
  await app.register(readCachePlugin, { ttlMs: config.readCacheMs });
  await app.register(livePlugin, { pollMs: config.livePollMs });
  // Before any route: it wraps the handlers of the reads that may go to the standby.
  await app.register(readRoutingPlugin);
  // Before any route: it wraps the handlers of the writes (their pool connections capped).
  await app.register(uploadConnectionsPlugin);
  // Answers compressed as the client accepts (brotli, gzip, deflate), from 1 KiB: a run's
  // JSON shrinks about tenfold. Registered after the read cache, so the cache keeps the plain
  // answer and each client gets its own encoding; before @fastify/static, so the web app's
  // files are compressed too. Request bodies are left alone: each ingest path inflates its own
  // with its own limits (request-bodies.plugin.ts).
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    threshold: 1024,
    encodings: ['br', 'gzip', 'deflate'],
    // Brotli's default (11) costs about 50x gzip's time on JSON of this size; 4 is as quick as
    // gzip and still smaller.
    brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } },
  });
  await app.register(requestBodiesPlugin, {
    idleMs: config.bodyTimeoutMs,
    minRate: { bytesPerS: config.bodyMinRate, windowMs: config.bodyRateWindowMs },
    maxHeldBytes: config.maxHeldBytes,
  });
  await app.register(jsonBodiesPlugin);
  await app.register(authPlugin);
  await app.register(statsdPlugin, {
    port: options.statsdPort ?? config.statsdPort,
    host: config.statsdHost,
    project: config.statsdProject,
    flushMs: config.statsdFlushMs,
    udp: config.statsdUdp,
    backlogMaxPoints: config.statsdBacklogMaxPoints,
  });
  await app.register(openapiPlugin);

  await app.register(
    async (api) => {
      await api.register(healthRoutes);
      await api.register(runsRoutes);
      await api.register(liveRoutes);
      await api.register(projectsRoutes);
      await api.register(gatesRoutes);
      await api.register(eventsRoutes);
      await api.register(tailRoutes);
      await api.register(perfettoRoutes);
      await api.register(reportsRoutes);
      await api.register(compareRoutes);
      await api.register(resultsRoutes, {
        maxResultBytes: config.maxResultBytes,
        maxStreamResultBytes: config.maxStreamResultBytes,
      });
      await api.register(metricsRoutes);
      await api.register(ingestRoutes);
    },
    { prefix: '/api/v1' },
  );
  await app.register(otlpRoutes, {
    maxBytes: config.otlpMaxBytes,
    bodyDeadlineMs: config.otlpBodyDeadlineMs,
  });
  await app.register(prometheusWriteRoutes, {
    prefix: '/api/v1',
    maxBytes: config.otlpMaxBytes,
    bodyDeadlineMs: config.otlpBodyDeadlineMs,
  });
  await app.register(selfMetricsRoutes);
  await app.register(webPlugin, { root: options.webRoot, publicUrl: config.publicUrl });
  return app;
}

function errorHandler() {
  return (
    error: FastifyError,
    request: import('fastify').FastifyRequest,
    reply: import('fastify').FastifyReply,
  ) => {
    const known = asAppError(error);
    if (known) {
      if (known.retryAfterS !== undefined) reply.header('retry-after', String(known.retryAfterS));
      if (known.code === 'database_unavailable')
        request.log.warn({ err: error }, `request failed: ${known.message}`);
      return reply.code(known.statusCode).send({
        statusCode: known.statusCode,
        code: known.code,
        message: known.message,
        ...known.where,
      });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const first = error.validation[0];
      const field = first?.instancePath.replace(/^\//, '').replace(/\//g, '.') || undefined;
      const where = error.validationContext ?? 'request';
      return reply.code(400).send({
        statusCode: 400,
        code: 'invalid_request',
        message: `${where}${field ? ` field "${field}"` : ''}: ${first?.message ?? 'invalid'}`,
        ...(field ? { field } : {}),
      });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code =
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? 'body_too_large'
          : error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
            ? 'unsupported_media_type'
            : 'bad_request';
      return reply.code(status).send({ statusCode: status, code, message: error.message });
    }
    request.log.error({ err: error }, 'request failed');
    return reply
      .code(500)
      .send({ statusCode: 500, code: 'internal', message: 'internal error; see the server log' });
  };
}
