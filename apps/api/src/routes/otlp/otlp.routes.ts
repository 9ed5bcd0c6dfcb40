// POST /v1/metrics and /v1/logs: the OTLP/HTTP metrics and logs receivers. Protobuf or JSON,
// gzip or not, with the responses the OTLP specification prescribes: ExportMetricsService-
// or ExportLogsServiceResponse (partial_success for what was rejected) in the request's own
// encoding, and failures as a google.rpc.Status with the status codes that make exporters retry (429/503) or not.
import type { Readable } from 'node:stream';
import { otlpRoutes as c } from '@meshbench/schema';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import protobuf from 'protobufjs/minimal.js';
import { AppError } from '../../errors.ts';
import { readBody } from '../../ingest/body-chunks.ts';
import { encodeLogsResponse } from '../../ingest/otlp/otlp-logs.ts';
import { encodeOtlpResponse } from '../../ingest/otlp/otlp-message.ts';
import { asAppError } from '../../services/failure.ts';
import { RETRY_AFTER_OVERLOADED_S } from '../../services/ingest.service.ts';
import type { OtlpFormat, OtlpResult } from '../../services/otlp.service.ts';
import { readAdmittedBody } from '../admitted-body.ts';
import { fromContract } from '../contract-route.ts';
import { decodedBody } from '../request-body.ts';

const FORMATS: Record<string, OtlpFormat> = {
  'application/x-protobuf': 'protobuf',
  'application/protobuf': 'protobuf',
  'application/json': 'json',
};

/** gRPC codes of google.rpc.Status by HTTP status. */
const GRPC_CODE: Record<number, number> = {
  400: 3, // INVALID_ARGUMENT
  401: 16, // UNAUTHENTICATED
  413: 8, // RESOURCE_EXHAUSTED
  415: 3,
  429: 8,
  503: 14, // UNAVAILABLE
};

/** google.rpc.Status {code = 1, message = 2} in protobuf. */
function statusProtobuf(code: number, message: string): Uint8Array {
  return protobuf.Writer.create().uint32(8).int32(code).uint32(18).string(message).finish();
}

const formatOf = (request: FastifyRequest): OtlpFormat | undefined =>
  FORMATS[(request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''];

/**
 * The whole body, gunzipped, at most `maxBytes`; each chunk is counted against the
 * replica's bound on OTLP bytes held (`hold`, which throws a 503 past it) as it arrives.
 * OTLP/HTTP names gzip alone: deflate is refused (415).
 */
export interface OtlpRoutesOptions {
  /** Largest request, decompressed (413 past it). */
  maxBytes: number;
  /** Longest a whole body may take to arrive (408 past it). */
  bodyDeadlineMs: number;
}

const routes: FastifyPluginAsync<OtlpRoutesOptions> = async (app, opts) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  // In this scope failures are google.rpc.Status bodies, as OTLP exporters read them.
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // A lost database is a 503 (exporters retry it), never a 500 (they drop the data).
    const known = asAppError(error);
    const status = known ? known.statusCode : (error.statusCode ?? 500);
    const message =
      status >= 500 && !known ? 'internal error; see the server log' : (known ?? error).message;
    if (status >= 500 && !known) request.log.error({ err: error }, 'OTLP export failed');
    else if (known?.code === 'aborted')
      request.log.info(`OTLP export aborted by the client: ${known.message}`);
    else if (known?.code === 'database_unavailable')
      request.log.warn({ err: error }, `OTLP export failed: ${known.message}`);
    if ((status === 429 || status === 503) && !reply.hasHeader('retry-after'))
      reply.header('retry-after', String(known?.retryAfterS ?? RETRY_AFTER_OVERLOADED_S));
    if (!request.raw.complete) reply.header('connection', 'close');
    const code = GRPC_CODE[status] ?? 13;
    if (formatOf(request) === 'protobuf') {
      return reply
        .code(status)
        .type('application/x-protobuf')
        .send(Buffer.from(statusProtobuf(code, message)));
    }
    return reply.code(status).type('application/json').send(JSON.stringify({ code, message }));
  });

  /**
   * Reads an export's body within the replica's bounds (slots for bodies arriving and for the
   * work, bytes held), hands it to `work`, and answers in the request's own encoding.
   */
  async function exportBody(
    request: FastifyRequest,
    reply: FastifyReply,
    work: (body: Buffer, format: OtlpFormat, projectId: string | null) => Promise<OtlpResult>,
    encode: (rejected: number, message: string) => Uint8Array,
    rejectedField: 'rejectedDataPoints' | 'rejectedLogRecords',
  ) {
    const format = formatOf(request);
    if (!format) {
      throw new AppError(
        415,
        'unsupported_media_type',
        `Content-Type must be application/x-protobuf or application/json, got "${request.headers['content-type'] ?? 'none'}"`,
      );
    }
    const otlp = app.services.otlp;
    // A slot for the body to arrive in, held while it arrives (at most bodyDeadlineMs),
    // then one of the slots of the work: senders that trickle never hold those.
    const { body, held } = await readAdmittedBody(request, otlp, opts.bodyDeadlineMs, (hold) =>
      readBody(
        decodedBody(request, request.body as Readable, { deflate: false }),
        opts.maxBytes,
        'MESHBENCH_OTLP_MAX_BYTES',
        hold,
      ),
    );
    let release: () => void = () => {};
    try {
      release = otlp.admit();
      const { principal } = request;
      const result = await work(
        body,
        format,
        principal.kind === 'project' ? principal.projectId : null,
      );
      if (format === 'protobuf') {
        return reply
          .type('application/x-protobuf')
          .send(Buffer.from(encode(result.rejected, result.message)));
      }
      return reply.type('application/json').send(
        JSON.stringify(
          result.message
            ? {
                partialSuccess: {
                  [rejectedField]: result.rejected,
                  errorMessage: result.message,
                },
              }
            : {},
        ),
      );
    } finally {
      release();
      otlp.unbuffer(held);
    }
  }

  app.route({
    ...fromContract(c.metrics),
    handler: (request, reply) =>
      exportBody(
        request,
        reply,
        (body, format, projectId) => app.services.otlp.export(body, format, { projectId }),
        encodeOtlpResponse,
        'rejectedDataPoints',
      ),
  });

  app.route({
    ...fromContract(c.logs),
    handler: (request, reply) =>
      exportBody(
        request,
        reply,
        (body, format, projectId) => app.services.otlpLogs.export(body, format, { projectId }),
        encodeLogsResponse,
        'rejectedLogRecords',
      ),
  });
};
export default routes;
