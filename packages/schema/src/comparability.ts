// Whether runs can be held against each other at all: what makes a comparison (a gate's, the
// compare page's, a report's) answer "not comparable" rather than a difference. The kinds and
// their rules are in docs/comparability.md. (Few descriptions here: every page loads this.)
import { z } from 'zod';

export const comparabilityKind = z.enum([
  'topology',
  'mesh-version',
  'rps-shortfall',
  'generator-saturated',
  'percentile-exactness',
]);
export type ComparabilityKind = z.infer<typeof comparabilityKind>;

export const comparabilityWarning = z.object({
  kind: comparabilityKind,
  /** The runs the warning is about: one run, or the pair (the other run, the baseline). */
  runIds: z.array(z.uuid()),
  /** What differs, with the numbers. */
  reason: z.string(),
});
export type ComparabilityWarning = z.infer<typeof comparabilityWarning>;

export const comparability = z.object({
  /** The runs checked, the first the baseline. */
  runs: z.array(z.uuid()),
  /** False when there is any warning. */
  comparable: z.boolean(),
  warnings: z.array(comparabilityWarning),
});
export type Comparability = z.infer<typeof comparability>;

/** What a comparison can pin: the gate rule's `same:<pin>`, the API's `same=<pin>`. */
export const comparabilityPin = z.enum(['mesh.version']);
export type ComparabilityPin = z.infer<typeof comparabilityPin>;

export const comparabilityQuery = z.object({
  runs: z
    .string()
    .describe('2 to 4 run ids or slugs, comma-separated, the first the baseline')
    .transform((s) => [...new Set(s.split(',').map((x) => x.trim()))].filter(Boolean))
    .refine((ids) => ids.length > 1 && ids.length < 5, 'give 2 to 4 different runs'),
  same: comparabilityPin.optional(),
});
export type ComparabilityQuery = z.infer<typeof comparabilityQuery>;
