// A run's metric series, one series' points, the scale-up timeline.
import {
  apiError,
  exemplarsQuery,
  pointsQuery,
  seriesExemplars,
  seriesList,
  seriesPoints,
  seriesQuery,
  timeline,
  timelineQuery,
} from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const runParams = z.object({ id: z.string().min(1).describe('run id or share slug') });

const routes: FastifyPluginAsyncZod = async (app) => {
  const { services } = app;

  app.get(
    '/runs/:id/series',
    {
      schema: {
        tags: ['metrics'],
        description:
          "Every metric series the run owns (StatsD and OTLP) with stats over the run's window. Distributions (timers, histograms, exponential histograms) carry the nearest-rank percentiles asked by `?percentiles=50,90,96,99,99.9` (default 50,90,99), each marked exact (raw samples) or with its bound: DDSketch relativeError, or the [lower, upper] of the histogram bucket the rank falls in.",
        params: runParams,
        querystring: seriesQuery,
        response: { 200: seriesList, 400: apiError, 404: apiError },
      },
    },
    async (request) => services.metrics.series(request.params.id, request.query),
  );

  app.get(
    '/runs/:id/series/:seriesId/points',
    {
      schema: {
        tags: ['metrics'],
        description:
          "One series over the run's window in at most `points` time buckets, each with its min and max (peaks survive downsampling). `t` is the bucket start (RFC 3339), `offsetMs` the same since the run started. `?percentiles=50,90,96,99,99.9` gives a distribution's stats and each bucket those nearest-rank percentiles, each marked exact or with its bound (as in GET /runs/{id}/series).",
        params: runParams.extend({ seriesId: z.string().regex(/^\d+$/) }),
        querystring: pointsQuery,
        response: { 200: seriesPoints, 400: apiError, 404: apiError },
      },
    },
    async (request) =>
      services.metrics.points(request.params.id, request.params.seriesId, request.query),
  );

  app.get(
    '/runs/:id/series/:seriesId/exemplars',
    {
      schema: {
        tags: ['metrics'],
        description:
          "The exemplars Prometheus remote write sent with the series' points over the run's window (each with its own time, exact value and labels such as trace_id), the latest `limit`, oldest first.",
        params: runParams.extend({ seriesId: z.string().regex(/^\d+$/) }),
        querystring: exemplarsQuery,
        response: { 200: seriesExemplars, 400: apiError, 404: apiError },
      },
    },
    async (request) =>
      services.metrics.exemplars(request.params.id, request.params.seriesId, request.query),
  );

  app.get(
    '/runs/:id/timeline',
    {
      schema: {
        tags: ['metrics'],
        description:
          "The scale-up timeline: lifecycle phases as cumulative counts (with rates and time to 50/90/99/100 % of the declared total) and the run's series, on one axis in ms since the run started, downsampled to at most `points` buckets.",
        params: runParams,
        querystring: timelineQuery,
        response: { 200: timeline, 400: apiError, 404: apiError },
      },
    },
    async (request) => services.timeline.timeline(request.params.id, request.query),
  );
};
export default routes;
