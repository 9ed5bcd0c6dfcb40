// A run watched as it happens (GET /runs/{id}/live, Server-Sent Events): every event carries
// the views the run page shows, built by the same reads as the stored views, so the last one
// (at the run's finish) equals what the stored views answer afterwards.
import { z } from 'zod';
import { runPropagation } from './churn.ts';
import { seriesList, timeline } from './metrics.ts';
import { changeList, DEFAULT_WITHIN_MS, propagation } from './propagation.ts';
import { loadStages, storedLoadResult } from './results-api.ts';
import { run } from './run.ts';

/** Changes whose propagation an event carries at most (a churn run's first ones, by id order). */
export const LIVE_MAX_CHANGES = 20;
/** Least time between two events of one run. */
export const LIVE_MIN_INTERVAL_MS = 1000;

/**
 * A churn run's propagation over all its changes as the run page asks it with its defaults
 * (its marked percentiles, its heatmap's 40 linear columns): the query a live state reads
 * `churn` with, and the page's key for it.
 */
export const LIVE_CHURN_QUERY = {
  percentiles: '50,96,99',
  withinMs: DEFAULT_WITHIN_MS,
  bins: 40,
  scale: 'linear',
} as const;

export const runLive = z.object({
  version: z
    .number()
    .int()
    .describe("the run's data version this state was read at or after (also the event's id)"),
  open: z
    .boolean()
    .describe(
      'whether the run is still running; false: finished (the end event comes once its finish is complete)',
    ),
  run: run.describe('as GET /runs/{id} answers'),
  changes: changeList.describe('as GET /runs/{id}/changes answers'),
  propagation: z
    .array(
      z.object({
        change: z.string(),
        summary: propagation
          .nullable()
          .describe('GET /runs/{id}/changes/{change}/propagation with its defaults; null: none'),
      }),
    )
    .describe(`the first ${LIVE_MAX_CHANGES} changes' propagation`),
  changesLeftOut: z
    .number()
    .int()
    .describe(
      'changes past the first ones, whose own summary is not carried (their rows are in `churn`)',
    ),
  churn: runPropagation
    .nullable()
    .describe(
      'a run of two changes or more (a churn test): GET /runs/{id}/propagation?percentiles=50,96,99&bins=40 (every change: per-change rows, pooled, per-change P99s, heatmap), as the run page shows it; null: fewer than two changes',
    ),
  timeline: timeline.describe('GET /runs/{id}/timeline with its defaults (1,000 points)'),
  series: seriesList.describe('GET /runs/{id}/series with its defaults'),
  results: z.array(storedLoadResult).describe('GET /runs/{id}/results'),
  stages: loadStages.nullable().describe('GET /runs/{id}/results/stages?percentiles=50,99'),
});
export type RunLive = z.infer<typeof runLive>;

/** The percentiles the live stages carry (the stages view's default). */
export const LIVE_STAGE_PERCENTILES = [50, 99] as const;
