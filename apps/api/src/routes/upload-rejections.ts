// An upload route's rejections, counted where the request fails: an onError hook of the
// route, so refusals before its handler (auth, the request's schema) count as well as the
// handler's and its service's. The reply is not read: the error says what it will be.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { asAppError } from '../services/failure.ts';
import type { UploadCounts } from '../services/upload-counts.ts';

/** An onError hook counting a 4xx answer of the route in `counts`. */
export function countRejections(counts: UploadCounts) {
  return async (request: FastifyRequest, _reply: FastifyReply, error: FastifyError) => {
    const known = asAppError(error);
    const status = known?.statusCode ?? error.statusCode ?? 500;
    if (status < 400 || status >= 500) return;
    counts.countRejected(status, known?.message ?? error.message, request.principal);
  };
}
