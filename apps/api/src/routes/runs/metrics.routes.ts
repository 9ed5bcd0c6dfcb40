// A run's metric series, one series' points, the scale-up timeline; the StatsD listener's
// own counters.
import {
  apiError,
  ingestStats,
  pointsQuery,
  seriesList,
  seriesPoints,
  seriesQuery,
  statsdStats,
  timeline,
  timelineQuery,
} from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Principal } from '../../domain/access.ts';
import { uploadCountersFor } from '../../plugins/upload-counters.plugin.ts';

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

  /**
   * The StatsD listener's counters, with the OTLP receiver's beside them. StatsD has no
   * authentication, so its last malformed line may be anyone's: only the admin sees it.
   */
  const statsdNow = (principal: Principal) => {
    const stats = app.statsd.stats();
    return {
      ...stats,
      lastMalformed: principal.kind === 'admin' ? stats.lastMalformed : null,
      otlp: { ...services.otlp.counters },
    };
  };

  app.get(
    '/statsd/stats',
    {
      schema: {
        tags: ['metrics'],
        description:
          "This replica's StatsD listener and OTLP receiver counters: lines, malformed lines, events, unmatched aggregates, rows written. The last malformed line is shown to the admin token only (StatsD lines carry no project).",
        response: { 200: statsdStats },
      },
    },
    async (request) => statsdNow(request.principal),
  );

  app.get(
    '/ingest/stats',
    {
      schema: {
        tags: ['metrics'],
        description:
          "What this replica has received on every ingest path since it started: StatsD and OTLP (as /statsd/stats), and the events API's and result uploads' requests stored, retried and rejected, with the last rejection's message. Messages are scoped to the caller: the admin token sees the replica's last rejection and malformed line, a project's token its own project's last rejection, no token none.",
        response: { 200: ingestStats },
      },
    },
    async (request) => {
      const { principal } = request;
      return {
        messagesShown:
          principal.kind === 'admin' ? 'all' : principal.kind === 'project' ? 'project' : 'none',
        statsd: statsdNow(principal),
        events: uploadCountersFor(app.uploads.events, principal),
        results: uploadCountersFor(app.uploads.results, principal),
      } as const;
    },
  );
};
export default routes;
