import {
  apiError,
  changeList,
  createRunBody,
  finishedRun,
  finishRunBody,
  listRunsQuery,
  propagation,
  propagationQuery,
  run,
  runClocks,
  runFacets,
  runHeadlines,
  runHeadlinesQuery,
  runList,
  runPropagation,
  runPropagationQuery,
  stageGap,
  stageGapQuery,
} from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { propagationCsv } from './propagation.csv.ts';

const runParams = z.object({ id: z.string().min(1).describe('run id or share slug') });
const errors = { 400: apiError, 401: apiError, 404: apiError };

const routes: FastifyPluginAsyncZod = async (app) => {
  const { services } = app;
  /** The run with what is left of finishing it, when anything is (absent once complete). */
  const withFinishing = async <T extends { id: string }>(r: T) => {
    const finishing = await services.finish.finishing(r.id);
    return finishing ? { ...r, finishing } : r;
  };

  app.post(
    '/runs',
    {
      schema: {
        tags: ['runs'],
        body: createRunBody,
        response: { 201: run, ...errors },
        security: [{ bearer: [] }],
      },
    },
    async (request, reply) =>
      reply.code(201).send(await services.runs.create(request.body, request.principal)),
  );

  app.get(
    '/runs',
    {
      schema: {
        tags: ['runs'],
        querystring: listRunsQuery,
        response: { 200: runList, 400: apiError },
      },
    },
    async (request) => services.runs.list(request.query, request.principal),
  );

  app.get(
    '/runs/facets',
    {
      schema: {
        tags: ['runs'],
        description:
          'Distinct values for the runs list filters, over the runs the caller may read (public projects, and the private project of its token).',
        response: { 200: runFacets },
      },
    },
    async (request) => services.runs.facets(request.principal),
  );

  app.get(
    '/runs/headlines',
    {
      schema: {
        tags: ['runs'],
        description:
          "The runs list's headline of each run named (those the caller may read; a run with nothing to head is left out): a propagation run's first change, P99 and share within 1 s; a data-plane run's P99 at its top rate; a scale-up's time from its start to all of its `joined` phase (else its largest phase).",
        querystring: runHeadlinesQuery,
        response: { 200: runHeadlines, 400: apiError },
      },
    },
    async (request) =>
      services.headlines.headlines(request.query.ids.split(','), request.principal),
  );

  app.get(
    '/runs/:id',
    { schema: { tags: ['runs'], params: runParams, response: { 200: run, 404: apiError } } },
    async (request) => {
      const found = await services.runs.get(request.params.id);
      // Whether to ask for the gate at all: a page need not read a 404 for most runs.
      return withFinishing({ ...found, gated: await services.gates.hasResult(found.id) });
    },
  );

  app.patch(
    '/runs/:id',
    {
      schema: {
        tags: ['runs'],
        description:
          "Finish a run: sets finishedAt (default now) and status (default finished). A finished run is held to its project's thresholds for its benchmark; `gate` is the verdict (null when none apply), kept at GET /runs/{id}/gate.",
        params: runParams,
        body: finishRunBody,
        response: { 200: finishedRun, ...errors },
        security: [{ bearer: [] }],
      },
    },
    async (request) => {
      const finished = await services.finish.finish(request.params.id, request.body);
      return withFinishing(finished);
    },
  );

  app.delete(
    '/runs/:id',
    {
      schema: {
        tags: ['runs'],
        description:
          "Deletes the run and every row of it: events, observations, lifecycle rows, clock reports, metric series and points, result files and their intervals, kept facts, gate results and alerts. A token of the run's project or the admin token only. Recorded in the `run_deletions` table (who, when, rows per table). Reports that froze the run keep their frozen content. A second DELETE answers 404.",
        params: runParams,
        response: { 204: z.null(), 401: apiError, 403: apiError, 404: apiError },
        security: [{ bearer: [] }],
      },
    },
    async (request, reply) => {
      const deleted = await services.runs.delete(request.params.id, request.principal);
      request.log.info({ runDeletion: deleted }, 'run deleted');
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/runs/:id/changes',
    {
      schema: {
        tags: ['propagation'],
        params: runParams,
        response: { 200: changeList, 404: apiError },
      },
    },
    async (request) => services.propagation.changes(request.params.id),
  );

  app.get(
    '/runs/:id/propagation',
    {
      schema: {
        tags: ['propagation'],
        description:
          'Exact propagation over every change of a run (a churn test), for one stage: per-change rows; `pooled`, nearest rank over every first application of every change together; `perChangeP99`, the distribution (min, median, P90, max) of each change\'s own P99 (a "P99 of P99s" is not a percentile of the applications: read `pooled` for that); and `heatmap`, first applications per change and bin of time since that change, the bins shared by every change.',
        params: runParams,
        querystring: runPropagationQuery,
        response: { 200: runPropagation, 400: apiError, 404: apiError },
      },
    },
    async (request) => services.churn.runPropagation(request.params.id, request.query),
  );

  app.get(
    '/runs/:id/changes/:changeId/propagation',
    {
      schema: {
        tags: ['propagation'],
        description:
          "Exact propagation summary of a change: nearest-rank percentiles, share within withinMs, histogram and CDF. `Accept: text/csv` (or ?format=csv) gives the tables as CSV. `?clock=corrected` gives them over latencies with each node's clock offset taken out (from the run's clock events), every percentile within `clock.maxClockErrorMs` of the truth; a run without clock reports answers it with 409 `no_clock_data`. Every answer carries `clock`: whether corrected data exists, for how many nodes, and the corrected figures in brief.",
        params: runParams.extend({ changeId: z.string().min(1) }),
        querystring: propagationQuery.extend({ format: z.enum(['json', 'csv']).optional() }),
        response: { 200: propagation, 400: apiError, 404: apiError, 409: apiError },
      },
    },
    async (request, reply) => {
      const { format, ...query } = request.query;
      const result = await services.propagation.propagation(
        request.params.id,
        request.params.changeId,
        query,
      );
      const wantsCsv =
        format === 'csv' ||
        (format === undefined && request.headers.accept?.startsWith('text/csv'));
      if (wantsCsv) {
        return (
          reply
            .type('text/csv; charset=utf-8')
            .header(
              'content-disposition',
              `attachment; filename="propagation-${request.params.changeId}.csv"`,
            )
            .serializer((s: string) => s)
            // The CSV bypasses the JSON response schema (its own serializer above).
            .send(propagationCsv(result) as never)
        );
      }
      return result;
    },
  );

  app.get(
    '/runs/:id/changes/:changeId/stages/gap',
    {
      schema: {
        tags: ['propagation'],
        description:
          "The per-proxy gap between two stages of a change (e.g. serving minus received): over the proxies seen at both, each one's first `to` minus its first `from`, with nearest-rank percentiles (exact), min/max/mean and a histogram; proxies seen at only one of the two are counted. Defaults: the first and the last stage the change has.",
        params: runParams.extend({ changeId: z.string().min(1) }),
        querystring: stageGapQuery,
        response: { 200: stageGap, 400: apiError, 404: apiError },
      },
    },
    async (request) =>
      services.propagation.stageGap(request.params.id, request.params.changeId, request.query),
  );

  app.get(
    '/runs/:id/clocks',
    {
      schema: {
        tags: ['propagation'],
        description:
          'Node clocks of a run: per node with clock reports, their count, offset range (node minus reference, positive when ahead) and largest error; and, clock reports or not, the nodes whose raw timestamps put a first application before its change, so their clocks were behind by at least that much.',
        params: runParams,
        response: { 200: runClocks, 404: apiError },
      },
    },
    async (request) => services.propagation.clocks(request.params.id),
  );
};
export default routes;
