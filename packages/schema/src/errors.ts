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

/** GET /health when the database cannot be used: the error shape, with the health fields. */
export const healthUnavailable = apiError.extend({
  status: z.literal('unavailable'),
  database: z.enum(['embedded', 'postgres']),
});
export type HealthUnavailable = z.infer<typeof healthUnavailable>;
