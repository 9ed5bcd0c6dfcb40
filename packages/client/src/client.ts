// Every route of the API as a typed call: the path and query built here, the answer parsed
// with the route's zod schema from @meshbench/schema (the one the API serializes with).
import {
  alert,
  comparability,
  type comparabilityQuery,
  contracts,
  createdReport,
  createdToken,
  type createProjectBody,
  type createReportBody,
  type createThresholdBody,
  type createTokenBody,
  type exemplarsQuery,
  gateResult,
  gateVerdict,
  health,
  history,
  type historyQuery,
  type importResultsQuery,
  importResultsResponse,
  ingestStats,
  type listResultsQuery,
  liveness,
  type loadGateQuery,
  loadStages,
  type pointsQuery,
  project,
  projectDetection,
  projectRetention,
  type putDetectionBody,
  type putRetentionBody,
  type RouteContract,
  report,
  seriesExemplars,
  seriesList,
  seriesPoints,
  type seriesQuery,
  significanceAnswer,
  type significanceQuery,
  type stagesQuery,
  statsdStats,
  storedLoadResult,
  tail,
  tailAttribution,
  type tailAttributionQuery,
  type tailQuery,
  threshold,
  timeline,
  type timelineQuery,
  tokenInfo,
  type updateAlertBody,
} from '@meshbench/schema';
import { z } from 'zod';
import { InvalidResponseError } from './errors.ts';
import {
  type CallOptions,
  pathTo,
  type QueryOf,
  queryString,
  type RawBody,
  type RouteArgs,
  type RouteAt,
  type RouteKey,
  routeAt,
  routeCaller,
} from './routes.ts';
import type { SendInit, Transport } from './transport.ts';

const runs = contracts.runs;
const events = contracts.events;

/** A route's query as its contract types it. */
type QueryAt<C extends RouteContract> = C extends { query: infer Q extends z.ZodType }
  ? QueryOf<Q>
  : never;

export type RunListQuery = QueryAt<typeof runs.list>;
export type PropagationQuery = QueryAt<typeof runs.propagation>;
export type RunPropagationQuery = QueryAt<typeof runs.runPropagation>;
export type TailQuery = QueryOf<typeof tailQuery>;
export type StageGapQuery = QueryAt<typeof runs.stageGap>;
export type TailAttributionQuery = QueryOf<typeof tailAttributionQuery>;
export type HistoryQuery = QueryOf<typeof historyQuery>;
export type SignificanceQuery = QueryOf<typeof significanceQuery>;
export type LoadGateQuery = QueryOf<typeof loadGateQuery>;
export type ComparabilityQuery = QueryOf<typeof comparabilityQuery>;
export type ResultsQuery = QueryOf<typeof listResultsQuery>;
export type LoadStagesQuery = QueryOf<typeof stagesQuery>;
export type SeriesQuery = QueryOf<typeof seriesQuery>;
export type ExemplarsQuery = QueryOf<typeof exemplarsQuery>;
export type PointsQuery = QueryOf<typeof pointsQuery>;
export type TimelineQuery = QueryOf<typeof timelineQuery>;
export type EventBatchQuery = QueryAt<typeof events.post>;
export type ImportResultsQuery = QueryOf<typeof importResultsQuery>;

const enc = encodeURIComponent;

/** Every route's path under API_BASE, for calls and for links (CSV, NDJSON) alike. */
export const paths = {
  health: () => '/health',
  healthLive: () => '/health/live',
  healthReady: () => '/health/ready',
  history: (q: HistoryQuery) => `/history${queryString(q)}`,
  comparability: (q: ComparabilityQuery) => `/compare/comparability${queryString(q)}`,
  ingestStats: () => '/ingest/stats',
  statsdStats: () => '/statsd/stats',
  projects: () => '/projects',
  projectTokens: (projectId: string) => `/projects/${enc(projectId)}/tokens`,
  projectThresholds: (projectId: string) => `/projects/${enc(projectId)}/thresholds`,
  projectDetection: (projectId: string) => `/projects/${enc(projectId)}/detection`,
  projectRetention: (projectId: string) => `/projects/${enc(projectId)}/retention`,
  token: (tokenId: string) => `/tokens/${enc(tokenId)}`,
  threshold: (thresholdId: string) => `/thresholds/${enc(thresholdId)}`,
  projectAlerts: (projectId: string, q: { state?: string } = {}) =>
    `/projects/${enc(projectId)}/alerts${queryString(q)}`,
  alert: (alertId: string) => `/alerts/${enc(alertId)}`,
  reports: () => '/reports',
  report: (slug: string) => `/reports/${enc(slug)}`,
  runs: (q: RunListQuery = {}) => pathTo(runs.list, { query: q }),
  runFacets: () => pathTo(runs.facets),
  runHeadlines: (ids: readonly string[]) =>
    pathTo(runs.headlines, { query: { ids: [ids].flat().join(',') } }),
  run: (runId: string) => pathTo(runs.get, { params: { id: runId } }),
  changes: (runId: string) => pathTo(runs.changes, { params: { id: runId } }),
  /** The run's live events (text/event-stream): read with watchRun, or EventSource. */
  live: (runId: string) => `/runs/${enc(runId)}/live`,
  runPropagation: (runId: string, q: RunPropagationQuery = {}) =>
    pathTo(runs.runPropagation, { params: { id: runId }, query: q }),
  propagation: (runId: string, changeId: string, q: PropagationQuery = {}) =>
    pathTo(runs.propagation, { params: { id: runId, changeId }, query: q }),
  stageGap: (runId: string, changeId: string, q: StageGapQuery = {}) =>
    pathTo(runs.stageGap, { params: { id: runId, changeId }, query: q }),
  tail: (runId: string, changeId: string, q: TailQuery = {}) =>
    `/runs/${enc(runId)}/changes/${enc(changeId)}/tail${queryString(q)}`,
  tailAttribution: (runId: string, changeId: string, q: TailAttributionQuery = {}) =>
    `/runs/${enc(runId)}/changes/${enc(changeId)}/tail/attribution${queryString(q)}`,
  /** A change as a Perfetto trace (binary; open it at ui.perfetto.dev): a link, no call. */
  perfettoTrace: (runId: string, changeId: string) =>
    `/runs/${enc(runId)}/changes/${enc(changeId)}/perfetto`,
  gate: (runId: string) => `/runs/${enc(runId)}/gate`,
  significance: (runId: string, q: SignificanceQuery) =>
    `/runs/${enc(runId)}/significance${queryString(q)}`,
  loadGate: (runId: string, q: LoadGateQuery) => `/runs/${enc(runId)}/load-gate${queryString(q)}`,
  clocks: (runId: string) => pathTo(runs.clocks, { params: { id: runId } }),
  /** The run's raw events as NDJSON (GET), or where a batch of them is posted. */
  events: (runId: string, q: EventBatchQuery = {}) =>
    pathTo(events.post, { params: { id: runId }, query: q }),
  eventSource: (runId: string, source: string) =>
    pathTo(events.sourceLines, { params: { id: runId, source } }),
  results: (runId: string, q: ResultsQuery | ImportResultsQuery = {}) =>
    `/runs/${enc(runId)}/results${queryString(q)}`,
  loadStages: (runId: string, q: LoadStagesQuery = {}) =>
    `/runs/${enc(runId)}/results/stages${queryString(q)}`,
  series: (runId: string, q: SeriesQuery = {}) => `/runs/${enc(runId)}/series${queryString(q)}`,
  seriesPoints: (runId: string, seriesId: string, q: PointsQuery = {}) =>
    `/runs/${enc(runId)}/series/${enc(seriesId)}/points${queryString(q)}`,
  seriesExemplars: (runId: string, seriesId: string, q: ExemplarsQuery = {}) =>
    `/runs/${enc(runId)}/series/${enc(seriesId)}/exemplars${queryString(q)}`,
  timeline: (runId: string, q: TimelineQuery = {}) =>
    `/runs/${enc(runId)}/timeline${queryString(q)}`,
};

export function createClient(transport: Transport) {
  const send = routeCaller(transport);
  async function call<S extends z.ZodType>(
    method: string,
    route: string,
    path: string,
    schema: S,
    opts: CallOptions = {},
    init: SendInit = {},
  ): Promise<z.output<S>> {
    const body = await transport.request(method, path, {
      ...init,
      headers: {
        ...init.headers,
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      },
      signal: opts.signal,
    });
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new InvalidResponseError(`${method} ${route}`, parsed.error.issues);
    return parsed.data;
  }
  const json = (value: unknown): SendInit => ({
    body: JSON.stringify(value),
    headers: { 'content-type': 'application/json' },
  });
  const raw = (r: RawBody): SendInit => ({
    body: r.body,
    headers: {
      'content-type': r.contentType ?? 'application/octet-stream',
      ...(r.contentEncoding ? { 'content-encoding': r.contentEncoding } : {}),
    },
  });
  const nothing = z.null();
  const get = <S extends z.ZodType>(route: string, path: string, schema: S, opts?: CallOptions) =>
    call('GET', route, path, schema, opts);

  return {
    /** Any route by its contract's key, e.g. `GET /runs/:id`: a key the API lacks is a type error. */
    request: async <K extends RouteKey>(key: K, args: RouteArgs<RouteAt<K>>, opts?: CallOptions) =>
      send(routeAt(key), args, opts),
    health: (opts?: CallOptions) => get('/health', paths.health(), health, opts),
    /** Whether the process serves (a balancer's liveness probe). */
    healthLive: (opts?: CallOptions) => get('/health/live', paths.healthLive(), liveness, opts),
    /** Whether the replica takes traffic: its database answers and it is not draining. */
    healthReady: (opts?: CallOptions) => get('/health/ready', paths.healthReady(), health, opts),
    history: (q: HistoryQuery, opts?: CallOptions) =>
      get('/history', paths.history(q), history, opts),
    ingestStats: (opts?: CallOptions) =>
      get('/ingest/stats', paths.ingestStats(), ingestStats, opts),
    statsdStats: (opts?: CallOptions) =>
      get('/statsd/stats', paths.statsdStats(), statsdStats, opts),

    projects: {
      list: (opts?: CallOptions) => get('/projects', paths.projects(), z.array(project), opts),
      create: (body: z.input<typeof createProjectBody>, opts?: CallOptions) =>
        call('POST', '/projects', paths.projects(), project, opts, json(body)),
      tokens: (projectId: string, opts?: CallOptions) =>
        get('/projects/{id}/tokens', paths.projectTokens(projectId), z.array(tokenInfo), opts),
      createToken: (projectId: string, body: z.input<typeof createTokenBody>, opts?: CallOptions) =>
        call(
          'POST',
          '/projects/{id}/tokens',
          paths.projectTokens(projectId),
          createdToken,
          opts,
          json(body),
        ),
      revokeToken: (tokenId: string, opts?: CallOptions) =>
        call('DELETE', '/tokens/{id}', paths.token(tokenId), nothing, opts),
      detection: (projectId: string, opts?: CallOptions) =>
        get('/projects/{id}/detection', paths.projectDetection(projectId), projectDetection, opts),
      setDetection: (
        projectId: string,
        body: z.input<typeof putDetectionBody>,
        opts?: CallOptions,
      ) =>
        call(
          'PUT',
          '/projects/{id}/detection',
          paths.projectDetection(projectId),
          projectDetection,
          opts,
          json(body),
        ),
      retention: (projectId: string, opts?: CallOptions) =>
        get('/projects/{id}/retention', paths.projectRetention(projectId), projectRetention, opts),
      setRetention: (
        projectId: string,
        body: z.input<typeof putRetentionBody>,
        opts?: CallOptions,
      ) =>
        call(
          'PUT',
          '/projects/{id}/retention',
          paths.projectRetention(projectId),
          projectRetention,
          opts,
          json(body),
        ),
      thresholds: (projectId: string, opts?: CallOptions) =>
        get(
          '/projects/{id}/thresholds',
          paths.projectThresholds(projectId),
          z.array(threshold),
          opts,
        ),
      createThreshold: (
        projectId: string,
        body: z.input<typeof createThresholdBody>,
        opts?: CallOptions,
      ) =>
        call(
          'POST',
          '/projects/{id}/thresholds',
          paths.projectThresholds(projectId),
          threshold,
          opts,
          json(body),
        ),
      alerts: (projectId: string, q: { state?: string } = {}, opts?: CallOptions) =>
        get('/projects/{id}/alerts', paths.projectAlerts(projectId, q), z.array(alert), opts),
      updateAlert: (alertId: string, body: z.input<typeof updateAlertBody>, opts?: CallOptions) =>
        call('PATCH', '/alerts/{id}', paths.alert(alertId), alert, opts, json(body)),
      deleteThreshold: (thresholdId: string, opts?: CallOptions) =>
        call('DELETE', '/thresholds/{id}', paths.threshold(thresholdId), nothing, opts),
    },

    compare: {
      /** Whether the runs (the first the baseline) can be compared: the compare page's warnings. */
      comparability: (q: ComparabilityQuery, opts?: CallOptions) =>
        get('/compare/comparability', paths.comparability(q), comparability, opts),
    },

    reports: {
      create: (body: z.input<typeof createReportBody>, opts?: CallOptions) =>
        call('POST', '/reports', paths.reports(), createdReport, opts, json(body)),
      get: (slug: string, opts?: CallOptions) =>
        get('/reports/{slug}', paths.report(slug), report, opts),
      delete: (slug: string, opts?: CallOptions) =>
        call('DELETE', '/reports/{slug}', paths.report(slug), nothing, opts),
    },

    runs: {
      list: (q: RunListQuery = {}, opts?: CallOptions) => send(runs.list, { query: q }, opts),
      create: (body: z.input<typeof runs.create.body>, opts?: CallOptions) =>
        send(runs.create, { body }, opts),
      facets: (opts?: CallOptions) => send(runs.facets, {}, opts),
      /** Each run's headline number (runs without one are left out); at most 100 ids. */
      headlines: (ids: readonly string[], opts?: CallOptions) =>
        send(runs.headlines, { query: { ids: [ids].flat().join(',') } }, opts),
      /** By id or share slug. */
      get: (runId: string, opts?: CallOptions) => send(runs.get, { params: { id: runId } }, opts),
      finish: (runId: string, body: z.input<typeof runs.finish.body>, opts?: CallOptions) =>
        send(runs.finish, { params: { id: runId }, body }, opts),
      /**
       * Deletes the run and every row of it (by id or slug; its project's token or the admin).
       * Reports that froze it keep their content.
       */
      delete: (runId: string, opts?: CallOptions) =>
        send(runs.delete, { params: { id: runId } }, opts),
      changes: (runId: string, opts?: CallOptions) =>
        send(runs.changes, { params: { id: runId } }, opts),
      /** Every change of the run at once (a churn test): rows, pooled, per-change P99s, heatmap. */
      runPropagation: (runId: string, q: RunPropagationQuery = {}, opts?: CallOptions) =>
        send(runs.runPropagation, { params: { id: runId }, query: q }, opts),
      propagation: (
        runId: string,
        changeId: string,
        q: Omit<PropagationQuery, 'format'> = {},
        opts?: CallOptions,
      ) => send(runs.propagation, { params: { id: runId, changeId }, query: q }, opts),
      /** The per-proxy gap between two stages of a change (first `to` minus first `from`). */
      stageGap: (runId: string, changeId: string, q: StageGapQuery = {}, opts?: CallOptions) =>
        send(runs.stageGap, { params: { id: runId, changeId }, query: q }, opts),
      tail: (
        runId: string,
        changeId: string,
        q: Omit<TailQuery, 'format'> = {},
        opts?: CallOptions,
      ) => get('/runs/{id}/changes/{changeId}/tail', paths.tail(runId, changeId, q), tail, opts),
      /** The attribute values over-represented in the tail, by lift. */
      tailAttribution: (
        runId: string,
        changeId: string,
        q: TailAttributionQuery = {},
        opts?: CallOptions,
      ) =>
        get(
          '/runs/{id}/changes/{changeId}/tail/attribution',
          paths.tailAttribution(runId, changeId, q),
          tailAttribution,
          opts,
        ),
      gate: (runId: string, opts?: CallOptions) =>
        get('/runs/{id}/gate', paths.gate(runId), gateResult, opts),
      significance: (runId: string, q: SignificanceQuery, opts?: CallOptions) =>
        get('/runs/{id}/significance', paths.significance(runId, q), significanceAnswer, opts),
      /** A data-plane rule (load.p99>+10%) held at each load step, as a threshold holds it. */
      loadGate: (runId: string, q: LoadGateQuery, opts?: CallOptions) =>
        get('/runs/{id}/load-gate', paths.loadGate(runId, q), gateVerdict, opts),
      /** Node clocks: their reports, and the nodes provably behind without them. */
      clocks: (runId: string, opts?: CallOptions) =>
        send(runs.clocks, { params: { id: runId } }, opts),
      /** Lines of a source the run holds, for a re-run to send only the others. */
      eventSource: (runId: string, source: string, opts?: CallOptions) =>
        send(events.sourceLines, { params: { id: runId, source } }, opts),
      /**
       * A batch of events (NDJSON or a JSON array) posted as it is. With an idempotency key
       * the batch is stored once however often it is sent, so a transport may send it again.
       */
      postEvents: (
        runId: string,
        batch: RawBody & { query?: EventBatchQuery; idempotencyKey?: string },
        opts?: CallOptions,
      ) =>
        send(
          events.post,
          {
            params: { id: runId },
            query: batch.query,
            body: { contentType: 'application/x-ndjson', ...batch },
            headers: batch.idempotencyKey ? { 'idempotency-key': batch.idempotencyKey } : {},
            idempotent: batch.idempotencyKey !== undefined,
          },
          opts,
        ),
      results: (runId: string, q: ResultsQuery = {}, opts?: CallOptions) =>
        get('/runs/{id}/results', paths.results(runId, q), z.array(storedLoadResult), opts),
      /**
       * A load generator's result file, as it is; format "auto" lets the API tell. With an
       * idempotency key, a retry of a request that may have reached the server is stored once.
       */
      importResults: (
        runId: string,
        file: RawBody & { query?: ImportResultsQuery; idempotencyKey?: string },
        opts?: CallOptions,
      ) => {
        const init = raw(file);
        return call(
          'POST',
          '/runs/{id}/results',
          paths.results(runId, file.query),
          importResultsResponse,
          opts,
          {
            ...init,
            headers: {
              ...init.headers,
              ...(file.idempotencyKey ? { 'idempotency-key': file.idempotencyKey } : {}),
            },
            idempotent: file.idempotencyKey !== undefined,
          },
        );
      },
      /** The run's stages over time, from its interval histograms. */
      loadStages: (runId: string, q: LoadStagesQuery = {}, opts?: CallOptions) =>
        get('/runs/{id}/results/stages', paths.loadStages(runId, q), loadStages, opts),
      series: (runId: string, q: SeriesQuery = {}, opts?: CallOptions) =>
        get('/runs/{id}/series', paths.series(runId, q), seriesList, opts),
      seriesPoints: (runId: string, seriesId: string, q: PointsQuery = {}, opts?: CallOptions) =>
        get(
          '/runs/{id}/series/{seriesId}/points',
          paths.seriesPoints(runId, seriesId, q),
          seriesPoints,
          opts,
        ),
      /** The exemplars remote write sent with a series' points, with their own times and labels. */
      seriesExemplars: (
        runId: string,
        seriesId: string,
        q: ExemplarsQuery = {},
        opts?: CallOptions,
      ) =>
        get(
          '/runs/{id}/series/{seriesId}/exemplars',
          paths.seriesExemplars(runId, seriesId, q),
          seriesExemplars,
          opts,
        ),
      timeline: (runId: string, q: TimelineQuery = {}, opts?: CallOptions) =>
        get('/runs/{id}/timeline', paths.timeline(runId, q), timeline, opts),
    },
  };
}

export type Client = ReturnType<typeof createClient>;
