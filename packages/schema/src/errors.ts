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

/**
 * GET /demo: how far the demo dataset has loaded (the first `npm start` of an empty database
 * posts it in the background): the web app's runs list says so while the runs arrive.
 */
export const demoProgress = z.object({
  state: z
    .enum(['off', 'loading', 'loaded', 'failed'])
    .describe('off: this process loads no demo (the database held data, or MESHBENCH_DEMO=0)'),
  loaded: z.number().int().nonnegative().describe('runs posted so far (exact)'),
  total: z.number().int().nonnegative().describe('runs the demo posts in all (exact); 0 when off'),
});
export type DemoProgress = z.infer<typeof demoProgress>;
