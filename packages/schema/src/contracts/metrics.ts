// The metrics group: a run's series, their points and exemplars, and its timeline.
import { z } from 'zod';
import { defineRoutes } from '../contract.ts';
import { apiError } from '../errors.ts';
import {
  exemplarsQuery,
  pointsQuery,
  seriesExemplars,
  seriesList,
  seriesPoints,
  seriesQuery,
  timeline,
  timelineQuery,
} from '../metrics.ts';

const runParams = z.object({ id: z.string().min(1).describe('run id or share slug') });

export const metricsRoutes = defineRoutes({
  series: {
    method: 'GET',
    path: '/runs/:id/series',
    tags: ['metrics'],
    summary: "A run's metric series",
    description:
      "Every metric series the run owns (StatsD and OTLP) with stats over the run's window. Distributions (timers, histograms, exponential histograms) carry the nearest-rank percentiles asked by `?percentiles=50,90,96,99,99.9` (default 50,90,99), each marked exact (raw samples) or with its bound: DDSketch relativeError, or the [lower, upper] of the histogram bucket the rank falls in.",
    params: runParams,
    query: seriesQuery,
    responses: { 200: seriesList, 400: apiError, 404: apiError },
  },
  points: {
    method: 'GET',
    path: '/runs/:id/series/:seriesId/points',
    tags: ['metrics'],
    summary: "One series' points over the run's window",
    description:
      "One series over the run's window in at most `points` time buckets, each with its min and max (peaks survive downsampling). `t` is the bucket start (RFC 3339), `offsetMs` the same since the run started. `?percentiles=50,90,96,99,99.9` gives a distribution's stats and each bucket those nearest-rank percentiles, each marked exact or with its bound (as in GET /runs/{id}/series).",
    params: runParams.extend({ seriesId: z.string().regex(/^\d+$/) }),
    query: pointsQuery,
    responses: { 200: seriesPoints, 400: apiError, 404: apiError },
  },
  exemplars: {
    method: 'GET',
    path: '/runs/:id/series/:seriesId/exemplars',
    tags: ['metrics'],
    summary: "One series' exemplars",
    description:
      "The exemplars Prometheus remote write sent with the series' points over the run's window (each with its own time, exact value and labels such as trace_id), the latest `limit`, oldest first.",
    params: runParams.extend({ seriesId: z.string().regex(/^\d+$/) }),
    query: exemplarsQuery,
    responses: { 200: seriesExemplars, 400: apiError, 404: apiError },
  },
  timeline: {
    method: 'GET',
    path: '/runs/:id/timeline',
    tags: ['metrics'],
    summary: "A run's scale-up timeline",
    description:
      "The scale-up timeline: lifecycle phases as cumulative counts (with rates and time to 50/90/99/100 % of the declared total) and the run's series, on one axis in ms since the run started, downsampled to at most `points` buckets.",
    params: runParams,
    query: timelineQuery,
    responses: { 200: timeline, 400: apiError, 404: apiError },
  },
});
