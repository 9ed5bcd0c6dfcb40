// The one error shape every 4xx and 5xx uses.
import { z } from 'zod';

export const apiError = z.object({
  statusCode: z.number().int(),
  code: z.string().meta({ example: 'invalid_event' }),
  message: z.string(),
  line: z.number().int().optional().describe('1-based line (NDJSON) or array index + 1'),
  field: z.string().optional().describe('path of the field at fault, e.g. at or attrs.az'),
});
export type ApiError = z.infer<typeof apiError>;

export const health = z.object({
  status: z.literal('ok'),
  database: z.enum(['embedded', 'postgres']),
});
export type Health = z.infer<typeof health>;

/**
 * GET /health and /health/ready when the replica should get no traffic: the database cannot
 * be used (`unavailable`), or it is shutting down (`draining`): the error shape, with the
 * health fields.
 */
export const healthUnavailable = apiError.extend({
  status: z.enum(['unavailable', 'draining']),
  database: z.enum(['embedded', 'postgres']),
});
export type HealthUnavailable = z.infer<typeof healthUnavailable>;

/** GET /health/live: the process serves requests (nothing else is checked). */
export const liveness = z.object({ status: z.literal('ok') });
export type Liveness = z.infer<typeof liveness>;
