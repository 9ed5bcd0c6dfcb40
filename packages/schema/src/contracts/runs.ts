// The runs group: create, list, read, finish and delete runs, and a run's propagation reads.
import { z } from 'zod';
import { runPropagation, runPropagationQuery } from '../churn.ts';
import { defineRoutes } from '../contract.ts';
import { apiError } from '../errors.ts';
import {
  changeList,
  propagation,
  propagationQuery,
  runClocks,
  stageGap,
  stageGapQuery,
} from '../propagation.ts';
import {
  createRunBody,
  finishedRun,
  finishRunBody,
  listRunsQuery,
  run,
  runFacets,
  runHeadlines,
  runHeadlinesQuery,
  runList,
} from '../run.ts';

const runParams = z.object({ id: z.string().min(1).describe('run id or share slug') });
const changeParams = runParams.extend({ changeId: z.string().min(1) });
const errors = { 400: apiError, 401: apiError, 404: apiError };

export const runsRoutes = defineRoutes({
  create: {
    method: 'POST',
    path: '/runs',
    tags: ['runs'],
    summary: 'Create a run',
    body: createRunBody,
    responses: { 201: run, ...errors },
    bearer: true,
  },
  list: {
    method: 'GET',
    path: '/runs',
    tags: ['runs'],
    summary: 'List runs',
    query: listRunsQuery,
    responses: { 200: runList, 400: apiError },
  },
  facets: {
    method: 'GET',
    path: '/runs/facets',
    tags: ['runs'],
    summary: "The runs list's filter values",
    description:
      'Distinct values for the runs list filters, over the runs the caller may read (public projects, and the private project of its token).',
    responses: { 200: runFacets },
  },
  headlines: {
    method: 'GET',
    path: '/runs/headlines',
    tags: ['runs'],
    summary: "Runs' headline figures",
    description:
      "The runs list's headline of each run named, in the order named (those the caller may read; a run with nothing to head is left out): a propagation run's first change, P99 and share within 1 s; a data-plane run's P99 at its top rate; a scale-up's time from its start to all of its `joined` phase (else its largest phase).",
    query: runHeadlinesQuery,
    responses: { 200: runHeadlines, 400: apiError },
  },
  get: {
    method: 'GET',
    path: '/runs/:id',
    tags: ['runs'],
    summary: 'A run',
    params: runParams,
    responses: { 200: run, 404: apiError },
  },
  finish: {
    method: 'PATCH',
    path: '/runs/:id',
    tags: ['runs'],
    summary: 'Finish a run',
    description:
      "Finish a run: sets finishedAt (default now) and status (default finished). A finished run is held to its project's thresholds for its benchmark; `gate` is the verdict (null when none apply), kept at GET /runs/{id}/gate.",
    params: runParams,
    body: finishRunBody,
    responses: { 200: finishedRun, ...errors },
    bearer: true,
  },
  delete: {
    method: 'DELETE',
    path: '/runs/:id',
    tags: ['runs'],
    summary: 'Delete a run and all its data',
    description:
      "Deletes the run and every row of it: events, observations, lifecycle rows, clock reports, metric series and points, result files and their intervals, kept facts, gate results and alerts. A token of the run's project or the admin token only. Recorded in the `run_deletions` table (who, when, rows per table). Reports that froze the run keep their frozen content. A second DELETE answers 404.",
    params: runParams,
    responses: { 204: z.null(), 401: apiError, 403: apiError, 404: apiError },
    bearer: true,
  },
  changes: {
    method: 'GET',
    path: '/runs/:id/changes',
    tags: ['propagation'],
    summary: "A run's changes",
    params: runParams,
    responses: { 200: changeList, 404: apiError },
  },
  runPropagation: {
    method: 'GET',
    path: '/runs/:id/propagation',
    tags: ['propagation'],
    summary: 'Propagation over every change of a run',
    description:
      'Exact propagation over every change of a run (a churn test), for one stage: per-change rows; `pooled`, nearest rank over every first application of every change together; `perChangeP99`, the distribution (min, median, P90, max) of each change\'s own P99 (a "P99 of P99s" is not a percentile of the applications: read `pooled` for that); and `heatmap`, first applications per change and bin of time since that change, the bins shared by every change.',
    params: runParams,
    query: runPropagationQuery,
    responses: { 200: runPropagation, 400: apiError, 404: apiError },
  },
  propagation: {
    method: 'GET',
    path: '/runs/:id/changes/:changeId/propagation',
    tags: ['propagation'],
    summary: "A change's propagation summary",
    description:
      "Exact propagation summary of a change: nearest-rank percentiles, share within withinMs, histogram and CDF. `Accept: text/csv` (or ?format=csv) gives the tables as CSV. `?clock=corrected` gives them over latencies with each node's clock offset taken out (from the run's clock events), every percentile within `clock.maxClockErrorMs` of the truth; a run without clock reports answers it with 409 `no_clock_data`. Every answer carries `clock`: whether corrected data exists, for how many nodes, and the corrected figures in brief.",
    params: changeParams,
    query: propagationQuery.extend({ format: z.enum(['json', 'csv']).optional() }),
    responses: { 200: propagation, 400: apiError, 404: apiError, 409: apiError },
  },
  stageGap: {
    method: 'GET',
    path: '/runs/:id/changes/:changeId/stages/gap',
    tags: ['propagation'],
    summary: 'The gap between two stages of a change',
    description:
      "The per-proxy gap between two stages of a change (e.g. serving minus received): over the proxies seen at both, each one's first `to` minus its first `from`, with nearest-rank percentiles (exact), min/max/mean and a histogram; proxies seen at only one of the two are counted. Defaults: the first and the last stage the change has.",
    params: changeParams,
    query: stageGapQuery,
    responses: { 200: stageGap, 400: apiError, 404: apiError },
  },
  clocks: {
    method: 'GET',
    path: '/runs/:id/clocks',
    tags: ['propagation'],
    summary: "A run's node clocks",
    description:
      'Node clocks of a run: per node with clock reports, their count, offset range (node minus reference, positive when ahead) and largest error; and, clock reports or not, the nodes whose raw timestamps put a first application before its change, so their clocks were behind by at least that much.',
    params: runParams,
    responses: { 200: runClocks, 404: apiError },
  },
});
