// Projects and API tokens.
import { z } from 'zod';

export const visibility = z.enum(['public', 'private']);
export type Visibility = z.infer<typeof visibility>;

export const createProjectBody = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'lower-case letters, digits, ".", "_" and "-", up to 63')
    .meta({ example: 'mesh-perf' }),
  visibility: visibility.default('public'),
});
export type CreateProjectBody = z.infer<typeof createProjectBody>;

export const project = z.object({
  id: z.uuid(),
  name: z.string(),
  visibility,
  createdAt: z.string(),
});
export type Project = z.infer<typeof project>;

export const createTokenBody = z.strictObject({
  name: z.string().min(1).max(100).meta({ example: 'github-actions' }),
});

export const tokenInfo = z.object({
  id: z.uuid(),
  projectId: z.uuid(),
  name: z.string(),
  prefix: z.string().describe('the first characters of the token, to tell tokens apart'),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type TokenInfo = z.infer<typeof tokenInfo>;

export const createdToken = tokenInfo.extend({
  token: z.string().describe('the token: shown this once, stored only as a hash'),
});
export type CreatedToken = z.infer<typeof createdToken>;

/** Change-point detection: the defaults, where a project sets none and a request overrides none. */
export const DEFAULT_DETECTION = { maxPValue: 0.001, minMagnitude: 0.05, minSegment: 3 } as const;

const maxPValue = z.number().gt(0).lt(1);
const minMagnitude = z.number().min(0);
const minSegment = z.number().int().min(1).max(100);

export const detectionSettings = z.object({ maxPValue, minMagnitude, minSegment });
export type DetectionSettings = z.infer<typeof detectionSettings>;

/** PUT /projects/{id}/detection: the settings to keep; a field left out goes back to its default. */
export const putDetectionBody = z.strictObject({
  maxPValue: maxPValue.optional(),
  minMagnitude: minMagnitude.optional(),
  minSegment: minSegment.optional(),
});
export type PutDetectionBody = z.infer<typeof putDetectionBody>;

export const projectDetection = z.object({
  projectId: z.uuid(),
  detection: detectionSettings,
  set: putDetectionBody,
  defaults: detectionSettings,
});
export type ProjectDetection = z.infer<typeof projectDetection>;

/** Raw data retention: days a done run's raw rows are kept; null keeps them for ever. */
const rawRetentionDays = z
  .number()
  .int('rawRetentionDays must be a whole number of days')
  .min(1)
  .max(36_500)
  .nullable();

/** PUT /projects/{id}/retention. */
export const putRetentionBody = z.strictObject({
  rawRetentionDays: rawRetentionDays.meta({ example: 90 }),
});
export type PutRetentionBody = z.infer<typeof putRetentionBody>;

export const projectRetention = z.object({
  projectId: z.uuid(),
  rawRetentionDays: rawRetentionDays.describe(
    "days a run's raw rows (observations, incidents, lifecycle events, clock reports, metric points, load intervals) are kept after the run's last activity; null: for ever",
  ),
  rawDroppedRuns: z
    .number()
    .int()
    .describe("the project's runs whose raw rows retention has dropped (exact)"),
});
export type ProjectRetention = z.infer<typeof projectRetention>;
