// POST /api/v1/write: the Prometheus remote-write receiver (the URL a user puts in
// remote_write.url). The message is chosen by Content-Type as the 2.0 specification says
// (prometheus/docs docs/specs/prw/remote_write_spec_2_0.md): application/x-protobuf, or
// with proto=prometheus.WriteRequest, is 1.0; proto=io.prometheus.write.v2.Request is 2.0;
// anything else, or an encoding but snappy, is 415. All written: 204 (2.0: with the
// X-Prometheus-Remote-Write-*-Written headers). Anything not written: never 2xx; 400 (the
// sender must not retry) naming what and why, the headers counting what was written.
// Retryable failures (the database away, the replica at capacity) are 503 + Retry-After,
// never 429: Prometheus 2.x drops a batch answered 429 unless told to retry it.
import type { Readable } from 'node:stream';
import { prometheusRoutes as c } from '@meshbench/schema';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import { readBody } from '../../ingest/body-chunks.ts';
import type { Held } from '../../ingest/prometheus/remote-write-outcome.ts';
import { asAppError } from '../../services/failure.ts';
import { RETRY_AFTER_OVERLOADED_S } from '../../services/ingest.service.ts';
import type { RemoteWriteVersion } from '../../services/prometheus-write.service.ts';
import { readAdmittedBody } from '../admitted-body.ts';
import { fromContract } from '../contract-route.ts';

export const WRITE_V1 = 'prometheus.WriteRequest';
export const WRITE_V2 = 'io.prometheus.write.v2.Request';

/** The message a Content-Type names, or an error saying why it names none. */
export function versionOf(contentType: string | undefined): RemoteWriteVersion | string {
  if (!contentType) return 'the request has no Content-Type';
  const [media, ...params] = contentType.split(';').map((p) => p.trim());
  if (media?.toLowerCase() !== 'application/x-protobuf') {
    return `Content-Type must be application/x-protobuf, got "${contentType}"`;
  }
  let proto: string | undefined;
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    if (p.slice(0, eq).trim().toLowerCase() === 'proto') {
      proto = p
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
    }
  }
  if (proto === undefined || proto === WRITE_V1) return 1;
  if (proto === WRITE_V2) return 2;
  return `proto=${proto} is not a message this receiver reads (${WRITE_V1} or ${WRITE_V2})`;
}

function writtenHeaders(reply: FastifyReply, written: Held): void {
  reply.header('x-prometheus-remote-write-samples-written', String(written.samples));
  reply.header('x-prometheus-remote-write-histograms-written', String(written.histograms));
  reply.header('x-prometheus-remote-write-exemplars-written', String(written.exemplars));
}

export interface PrometheusWriteRoutesOptions {
  /** Largest request, decompressed and as sent (413 past it). */
  maxBytes: number;
  /** Longest a whole body may take to arrive (408 past it). */
  bodyDeadlineMs: number;
}

const routes: FastifyPluginAsync<PrometheusWriteRoutesOptions> = async (app, opts) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  // The specification's error body: human-readable text, which senders log as it is.
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = asAppError(error);
    const status = known ? known.statusCode : (error.statusCode ?? 500);
    const message =
      status >= 500 && !known ? 'internal error; see the server log' : (known ?? error).message;
    if (status >= 500 && !known) request.log.error({ err: error }, 'remote write failed');
    else if (known?.code === 'database_unavailable')
      request.log.warn({ err: error }, `remote write failed: ${known.message}`);
    // A 500 is retried by Prometheus as a 503 is: both say when.
    if (status >= 500 && !reply.hasHeader('retry-after'))
      reply.header('retry-after', String(known?.retryAfterS ?? RETRY_AFTER_OVERLOADED_S));
    if (!request.raw.complete) reply.header('connection', 'close');
    return reply.code(status).type('text/plain; charset=utf-8').send(`${message}\n`);
  });

  app.route({
    ...fromContract(c.write),
    handler: async (request, reply) => {
      const version = versionOf(request.headers['content-type']);
      if (typeof version === 'string') {
        throw new AppError(415, 'unsupported_media_type', version);
      }
      const encoding = String(request.headers['content-encoding'] ?? '')
        .trim()
        .toLowerCase();
      if (encoding !== 'snappy') {
        throw new AppError(
          415,
          'unsupported_media_type',
          `Content-Encoding must be snappy (block format), got "${encoding || 'none'}"`,
        );
      }
      const service = app.services.prometheusWrite;
      const { body, held } = await readAdmittedBody(request, service, opts.bodyDeadlineMs, (hold) =>
        readBody(request.body as Readable, opts.maxBytes, 'MESHBENCH_OTLP_MAX_BYTES', hold),
      );
      let release: () => void = () => {};
      try {
        release = service.admit();
        const { principal } = request;
        const result = await service.write(
          body,
          version,
          { projectId: principal.kind === 'project' ? principal.projectId : null },
          opts.maxBytes,
        );
        // 2.0 only, as upstream's receiver does: a 1.0 sender must not read them (the spec).
        if (version === 2) writtenHeaders(reply, result.written);
        if (result.refused) {
          const text = `not all was written: ${result.refused}${result.notes ? `; ${result.notes}` : ''}\n`;
          return reply.code(400).type('text/plain; charset=utf-8').send(text);
        }
        return reply.code(204).send();
      } finally {
        release();
        service.unbuffer(held);
      }
    },
  });
};
export default routes;
