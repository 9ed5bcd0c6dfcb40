// Reports: a frozen snapshot of what the screen showed for one to four runs.
import { z } from 'zod';
import { comparability, percentileDifference } from './comparability.ts';
import { timeline } from './metrics.ts';
import { propagation } from './propagation.ts';
import { loadStages, storedLoadResult } from './results-api.ts';
import { run, runHeadline } from './run.ts';
import { tail, tailCause } from './tail.ts';

export const createReportBody = z.strictObject({
  runs: z
    .array(z.string().min(1))
    .min(1)
    .max(4)
    .describe('run ids or slugs; the first is the baseline of a comparison'),
  title: z.string().min(1).max(200).optional(),
});
export type CreateReportBody = z.infer<typeof createReportBody>;

/**
 * The tail as it was when the report was made: a report made before the tail's cut, the
 * causes' descriptions and its clock existed lacks them.
 */
export const reportTail = tail
  .partial({
    cut: true,
    cutRule: true,
    medianMs: true,
    applied: true,
    clock: true,
    clockErrorMs: true,
  })
  .extend({
    causes: z.array(tailCause.partial({ description: true, described: true })),
  });

export type ReportTail = z.infer<typeof reportTail>;

export const reportChange = z.object({
  /** Histogram on linear bins up to the change's P99, with the CDF. */
  linear: propagation,
  /** Histogram on log bins over the whole range. */
  log: propagation,
  tail: reportTail.describe(
    "cut, cutRule, medianMs, applied and the causes' description, described: absent in reports made before they existed",
  ),
  intervals: z
    .array(
      z.object({
        baselineChange: z.string(),
        differences: z.array(percentileDifference),
      }),
    )
    .optional()
    .describe(
      "a compared run's change (not the baseline's): its percentiles' differences from the baseline run's change of the same id, or from its first change when this is the run's first, with their 95 % bootstrap intervals (GET /compare/significance) as they were; absent in reports made before they were kept",
    ),
});
export type ReportChange = z.infer<typeof reportChange>;

export const reportRun = z.object({
  run: run.omit({ slug: true, projectId: true }),
  changes: z.array(reportChange),
  loadResults: z.array(storedLoadResult),
  timeline: timeline
    .nullable()
    .optional()
    .describe(
      'the scale-up timeline as it was (REPORT_TIMELINE_POINTS per line); null when the run had none, absent in reports made before timelines were kept',
    ),
  stages: loadStages
    .nullable()
    .optional()
    .describe(
      'a run with interval data: its stages as they were (GET /runs/{id}/results/stages at P50, P90 and P99); null when it had none, absent in reports made before stages were kept',
    ),
  headline: runHeadline
    .nullable()
    .optional()
    .describe(
      "the run's headline as it was (GET /runs/headlines: pooled over a churn run's changes, merged over a step's generators); null when it had none, absent in reports made before headlines were kept",
    ),
});
export type ReportRun = z.infer<typeof reportRun>;

export const report = z.object({
  slug: z.string(),
  title: z.string(),
  description: z.string().describe('the headline numbers, as a link preview shows them'),
  createdAt: z.string(),
  runs: z.array(reportRun),
  /** The compare page's warnings, on the frozen runs; null for one run. */
  comparability: comparability.nullable(),
});
export type Report = z.infer<typeof report>;

export const createdReport = z.object({
  slug: z.string().describe('128 random bits: whoever has it can read the report, nothing else'),
  url: z.string().describe('the page, relative to the server: /r/{slug}'),
  title: z.string(),
});
export type CreatedReport = z.infer<typeof createdReport>;
