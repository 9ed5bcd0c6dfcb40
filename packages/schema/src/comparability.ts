// Whether runs can be held against each other at all: what makes a comparison (a gate's, the
// compare page's, a report's) answer "not comparable" rather than a difference.
import { z } from 'zod';

export const comparabilityKind = z
  .enum([
    'topology',
    'mesh-version',
    'rps-shortfall',
    'generator-saturated',
    'percentile-exactness',
  ])
  .describe(
    [
      'topology: the runs differ in nodes or instances',
      'mesh-version: the mesh versions differ and the rule (or the request) pins them with same:mesh.version',
      'rps-shortfall: a load point achieved less than 95 % of its target rate (more than 5 % below), in either run',
      'generator-saturated: a load point says its generator was saturated (label generator.saturated=true), or its client-side CPU peak reached 95 % of the cores the client side had (label generator.cores)',
      'percentile-exactness: one run has a percentile exact (nearest rank over raw values) where the other has it estimated, at the same load point',
    ].join('; '),
  );
export type ComparabilityKind = z.infer<typeof comparabilityKind>;

export const comparabilityWarning = z.object({
  kind: comparabilityKind,
  runIds: z.array(z.uuid()).describe('the runs the warning is about: one run, or the pair'),
  reason: z.string().describe('what differs, with the numbers'),
});
export type ComparabilityWarning = z.infer<typeof comparabilityWarning>;

export const comparability = z.object({
  runs: z.array(z.uuid()).describe('the runs checked, the first the baseline'),
  comparable: z.boolean().describe('false when there is any warning'),
  warnings: z.array(comparabilityWarning),
});
export type Comparability = z.infer<typeof comparability>;

/** What a comparison can pin: the gate rule's `same:<pin>`. */
export const comparabilityPin = z.enum(['mesh.version']);
export type ComparabilityPin = z.infer<typeof comparabilityPin>;

export const comparabilityQuery = z.object({
  runs: z
    .string()
    .min(1)
    .describe(
      '2 to 4 run ids or slugs, comma-separated, the first the baseline (as /compare has them)',
    )
    .transform((s) => [
      ...new Set(
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      ),
    ])
    .refine((ids) => ids.length >= 2 && ids.length <= 4, 'give 2 to 4 different runs'),
  same: comparabilityPin
    .optional()
    .describe(
      'mesh.version: runs of different mesh versions are not comparable (as a rule with same:mesh.version)',
    ),
});
export type ComparabilityQuery = z.infer<typeof comparabilityQuery>;
