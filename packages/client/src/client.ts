// Every route of the API as a typed call, derived from the route contracts in
// @meshbench/schema: the path, params, query and body are the contract's, and the answer is
// parsed with the contract's 2xx schema (the one the API serializes with).
import { contracts, type RouteContract } from '@meshbench/schema';
import type { z } from 'zod';
import {
  type CallOptions,
  pathTo,
  type QueryOf,
  type RawBody,
  type RouteArgs,
  type RouteAt,
  type RouteKey,
  routeAt,
  routeCaller,
} from './routes.ts';
import type { Transport } from './transport.ts';

const {
  compare,
  events,
  gates,
  health,
  ingest,
  metrics,
  perfetto,
  projects,
  reports,
  results,
  runs,
  tail,
} = contracts;

/** A route's query as its contract types it. */
type QueryAt<C extends RouteContract> = C extends { query: infer Q extends z.ZodType }
  ? QueryOf<Q>
  : never;
/** A route's JSON body as its contract types it. */
type BodyAt<C extends RouteContract> = C extends { body: infer B extends z.ZodType }
  ? z.input<B>
  : never;

export type RunListQuery = QueryAt<typeof runs.list>;
export type PropagationQuery = QueryAt<typeof runs.propagation>;
export type RunPropagationQuery = QueryAt<typeof runs.runPropagation>;
export type TailQuery = QueryAt<typeof tail.tail>;
export type StageGapQuery = QueryAt<typeof runs.stageGap>;
export type TailAttributionQuery = QueryAt<typeof tail.attribution>;
export type HistoryQuery = QueryAt<typeof gates.history>;
export type SignificanceQuery = QueryAt<typeof gates.significance>;
export type LoadGateQuery = QueryAt<typeof gates.loadGate>;
export type CompareViewQuery = QueryAt<typeof compare.view>;
export type ComparabilityQuery = QueryAt<typeof compare.comparability>;
export type CompareSignificanceQuery = QueryAt<typeof compare.significance>;
export type AlertsQuery = QueryAt<typeof gates.alerts>;
export type ResultsQuery = QueryAt<typeof results.list>;
export type LoadStagesQuery = QueryAt<typeof results.stages>;
export type SeriesQuery = QueryAt<typeof metrics.series>;
export type ExemplarsQuery = QueryAt<typeof metrics.exemplars>;
export type PointsQuery = QueryAt<typeof metrics.points>;
export type TimelineQuery = QueryAt<typeof metrics.timeline>;
export type EventBatchQuery = QueryAt<typeof events.post>;
export type ImportResultsQuery = QueryAt<typeof results.import>;

/** The params of a route whose one param is `id` (a run, project, token, threshold, alert). */
const byId = (id: string) => ({ params: { id } });
const change = (id: string, changeId: string) => ({ params: { id, changeId } });

/** Every route's path under API_BASE, for calls and for links (CSV, NDJSON) alike. */
export const paths = {
  health: () => pathTo(health.health),
  healthLive: () => pathTo(health.live),
  healthReady: () => pathTo(health.ready),
  demoProgress: () => pathTo(health.demo),
  history: (q: HistoryQuery) => pathTo(gates.history, { query: q }),
  compareView: (q: CompareViewQuery) => pathTo(compare.view, { query: q }),
  comparability: (q: ComparabilityQuery) => pathTo(compare.comparability, { query: q }),
  compareSignificance: (q: CompareSignificanceQuery) => pathTo(compare.significance, { query: q }),
  ingestStats: () => pathTo(ingest.ingestStats),
  statsdStats: () => pathTo(ingest.statsdStats),
  projects: () => pathTo(projects.list),
  projectTokens: (projectId: string) => pathTo(projects.tokens, byId(projectId)),
  projectThresholds: (projectId: string) => pathTo(gates.thresholds, byId(projectId)),
  projectDetection: (projectId: string) => pathTo(projects.detection, byId(projectId)),
  projectRetention: (projectId: string) => pathTo(projects.retention, byId(projectId)),
  token: (tokenId: string) => pathTo(projects.revokeToken, byId(tokenId)),
  threshold: (thresholdId: string) => pathTo(gates.deleteThreshold, byId(thresholdId)),
  projectAlerts: (projectId: string, q: AlertsQuery = {}) =>
    pathTo(gates.alerts, { ...byId(projectId), query: q }),
  alert: (alertId: string) => pathTo(gates.updateAlert, byId(alertId)),
  reports: () => pathTo(reports.create),
  report: (slug: string) => pathTo(reports.get, { params: { slug } }),
  runs: (q: RunListQuery = {}) => pathTo(runs.list, { query: q }),
  runFacets: () => pathTo(runs.facets),
  runHeadlines: (ids: readonly string[]) =>
    pathTo(runs.headlines, { query: { ids: [ids].flat().join(',') } }),
  run: (runId: string) => pathTo(runs.get, byId(runId)),
  changes: (runId: string) => pathTo(runs.changes, byId(runId)),
  /** The run's live events (text/event-stream): read with watchRun, or EventSource. */
  live: (runId: string) => pathTo(contracts.live.live, byId(runId)),
  runPropagation: (runId: string, q: RunPropagationQuery = {}) =>
    pathTo(runs.runPropagation, { ...byId(runId), query: q }),
  propagation: (runId: string, changeId: string, q: PropagationQuery = {}) =>
    pathTo(runs.propagation, { ...change(runId, changeId), query: q }),
  stageGap: (runId: string, changeId: string, q: StageGapQuery = {}) =>
    pathTo(runs.stageGap, { ...change(runId, changeId), query: q }),
  tail: (runId: string, changeId: string, q: TailQuery = {}) =>
    pathTo(tail.tail, { ...change(runId, changeId), query: q }),
  tailAttribution: (runId: string, changeId: string, q: TailAttributionQuery = {}) =>
    pathTo(tail.attribution, { ...change(runId, changeId), query: q }),
  /** A change as a Perfetto trace (binary; open it at ui.perfetto.dev): a link, no call. */
  perfettoTrace: (runId: string, changeId: string) =>
    pathTo(perfetto.trace, change(runId, changeId)),
  gate: (runId: string) => pathTo(gates.gate, byId(runId)),
  significance: (runId: string, q: SignificanceQuery) =>
    pathTo(gates.significance, { ...byId(runId), query: q }),
  loadGate: (runId: string, q: LoadGateQuery) =>
    pathTo(gates.loadGate, { ...byId(runId), query: q }),
  clocks: (runId: string) => pathTo(runs.clocks, byId(runId)),
  /** The run's raw events as NDJSON (GET), or where a batch of them is posted. */
  events: (runId: string, q: EventBatchQuery = {}) =>
    pathTo(events.post, { ...byId(runId), query: q }),
  eventSource: (runId: string, source: string) =>
    pathTo(events.sourceLines, { params: { id: runId, source } }),
  results: (runId: string, q: ResultsQuery | ImportResultsQuery = {}) =>
    pathTo(results.list, { ...byId(runId), query: q as ResultsQuery }),
  loadStages: (runId: string, q: LoadStagesQuery = {}) =>
    pathTo(results.stages, { ...byId(runId), query: q }),
  series: (runId: string, q: SeriesQuery = {}) =>
    pathTo(metrics.series, { ...byId(runId), query: q }),
  seriesPoints: (runId: string, seriesId: string, q: PointsQuery = {}) =>
    pathTo(metrics.points, { params: { id: runId, seriesId }, query: q }),
  seriesExemplars: (runId: string, seriesId: string, q: ExemplarsQuery = {}) =>
    pathTo(metrics.exemplars, { params: { id: runId, seriesId }, query: q }),
  timeline: (runId: string, q: TimelineQuery = {}) =>
    pathTo(metrics.timeline, { ...byId(runId), query: q }),
};

/** A body posted as it is, with the query of its route and an idempotency key. */
type Upload<Q> = RawBody & { query?: Q; idempotencyKey?: string };
/** Stored once however often it is sent, when it names an idempotency key. */
const once = (upload: { idempotencyKey?: string }) => ({
  headers: (upload.idempotencyKey ? { 'idempotency-key': upload.idempotencyKey } : {}) as Record<
    string,
    string
  >,
  idempotent: upload.idempotencyKey !== undefined,
});

export function createClient(transport: Transport) {
  const send = routeCaller(transport);

  return {
    /** Any route by its contract's key, e.g. `GET /runs/:id`: a key the API lacks is a type error. */
    request: async <K extends RouteKey>(key: K, args: RouteArgs<RouteAt<K>>, opts?: CallOptions) =>
      send(routeAt(key), args, opts),
    health: (opts?: CallOptions) => send(health.health, {}, opts),
    /** Whether the process serves (a balancer's liveness probe). */
    healthLive: (opts?: CallOptions) => send(health.live, {}, opts),
    /** Whether the replica takes traffic: its database answers and it is not draining. */
    healthReady: (opts?: CallOptions) => send(health.ready, {}, opts),
    /** How far the demo dataset has loaded on a first start. */
    demoProgress: (opts?: CallOptions) => send(health.demo, {}, opts),
    history: (q: HistoryQuery, opts?: CallOptions) => send(gates.history, { query: q }, opts),
    ingestStats: (opts?: CallOptions) => send(ingest.ingestStats, {}, opts),
    statsdStats: (opts?: CallOptions) => send(ingest.statsdStats, {}, opts),

    projects: {
      list: (opts?: CallOptions) => send(projects.list, {}, opts),
      create: (body: BodyAt<typeof projects.create>, opts?: CallOptions) =>
        send(projects.create, { body }, opts),
      tokens: (projectId: string, opts?: CallOptions) =>
        send(projects.tokens, byId(projectId), opts),
      createToken: (
        projectId: string,
        body: BodyAt<typeof projects.createToken>,
        opts?: CallOptions,
      ) => send(projects.createToken, { ...byId(projectId), body }, opts),
      revokeToken: (tokenId: string, opts?: CallOptions) =>
        send(projects.revokeToken, byId(tokenId), opts),
      detection: (projectId: string, opts?: CallOptions) =>
        send(projects.detection, byId(projectId), opts),
      setDetection: (
        projectId: string,
        body: BodyAt<typeof projects.setDetection>,
        opts?: CallOptions,
      ) => send(projects.setDetection, { ...byId(projectId), body }, opts),
      retention: (projectId: string, opts?: CallOptions) =>
        send(projects.retention, byId(projectId), opts),
      setRetention: (
        projectId: string,
        body: BodyAt<typeof projects.setRetention>,
        opts?: CallOptions,
      ) => send(projects.setRetention, { ...byId(projectId), body }, opts),
      thresholds: (projectId: string, opts?: CallOptions) =>
        send(gates.thresholds, byId(projectId), opts),
      createThreshold: (
        projectId: string,
        body: BodyAt<typeof gates.createThreshold>,
        opts?: CallOptions,
      ) => send(gates.createThreshold, { ...byId(projectId), body }, opts),
      alerts: (projectId: string, q: AlertsQuery = {}, opts?: CallOptions) =>
        send(gates.alerts, { ...byId(projectId), query: q }, opts),
      updateAlert: (alertId: string, body: BodyAt<typeof gates.updateAlert>, opts?: CallOptions) =>
        send(gates.updateAlert, { ...byId(alertId), body }, opts),
      deleteThreshold: (thresholdId: string, opts?: CallOptions) =>
        send(gates.deleteThreshold, byId(thresholdId), opts),
    },

    compare: {
      /** What the compare page's table needs in one read: runs, changes, summaries, headlines. */
      view: (q: CompareViewQuery, opts?: CallOptions) => send(compare.view, { query: q }, opts),
      /** Whether the runs (the first the baseline) can be compared: the compare page's warnings. */
      comparability: (q: ComparabilityQuery, opts?: CallOptions) =>
        send(compare.comparability, { query: q }, opts),
      /** Per compared run, its percentiles' differences from the baseline's and their intervals. */
      significance: (q: CompareSignificanceQuery, opts?: CallOptions) =>
        send(compare.significance, { query: q }, opts),
    },

    reports: {
      create: (body: BodyAt<typeof reports.create>, opts?: CallOptions) =>
        send(reports.create, { body }, opts),
      get: (slug: string, opts?: CallOptions) => send(reports.get, { params: { slug } }, opts),
      delete: (slug: string, opts?: CallOptions) =>
        send(reports.delete, { params: { slug } }, opts),
    },

    runs: {
      list: (q: RunListQuery = {}, opts?: CallOptions) => send(runs.list, { query: q }, opts),
      create: (body: BodyAt<typeof runs.create>, opts?: CallOptions) =>
        send(runs.create, { body }, opts),
      facets: (opts?: CallOptions) => send(runs.facets, {}, opts),
      /** Each run's headline number (runs without one are left out); at most 100 ids. */
      headlines: (ids: readonly string[], opts?: CallOptions) =>
        send(runs.headlines, { query: { ids: [ids].flat().join(',') } }, opts),
      /** By id or share slug. */
      get: (runId: string, opts?: CallOptions) => send(runs.get, byId(runId), opts),
      finish: (runId: string, body: BodyAt<typeof runs.finish>, opts?: CallOptions) =>
        send(runs.finish, { ...byId(runId), body }, opts),
      /**
       * Deletes the run and every row of it (by id or slug; its project's token or the admin).
       * Reports that froze it keep their content.
       */
      delete: (runId: string, opts?: CallOptions) => send(runs.delete, byId(runId), opts),
      changes: (runId: string, opts?: CallOptions) => send(runs.changes, byId(runId), opts),
      /** Every change of the run at once (a churn test): rows, pooled, per-change P99s, heatmap. */
      runPropagation: (runId: string, q: RunPropagationQuery = {}, opts?: CallOptions) =>
        send(runs.runPropagation, { ...byId(runId), query: q }, opts),
      propagation: (
        runId: string,
        changeId: string,
        q: Omit<PropagationQuery, 'format'> = {},
        opts?: CallOptions,
      ) => send(runs.propagation, { ...change(runId, changeId), query: q }, opts),
      /** The per-proxy gap between two stages of a change (first `to` minus first `from`). */
      stageGap: (runId: string, changeId: string, q: StageGapQuery = {}, opts?: CallOptions) =>
        send(runs.stageGap, { ...change(runId, changeId), query: q }, opts),
      tail: (
        runId: string,
        changeId: string,
        q: Omit<TailQuery, 'format'> = {},
        opts?: CallOptions,
      ) => send(tail.tail, { ...change(runId, changeId), query: q }, opts),
      /** The attribute values over-represented in the tail, by lift. */
      tailAttribution: (
        runId: string,
        changeId: string,
        q: TailAttributionQuery = {},
        opts?: CallOptions,
      ) => send(tail.attribution, { ...change(runId, changeId), query: q }, opts),
      gate: (runId: string, opts?: CallOptions) => send(gates.gate, byId(runId), opts),
      significance: (runId: string, q: SignificanceQuery, opts?: CallOptions) =>
        send(gates.significance, { ...byId(runId), query: q }, opts),
      /** A data-plane rule (load.p99>+10%) held at each load step, as a threshold holds it. */
      loadGate: (runId: string, q: LoadGateQuery, opts?: CallOptions) =>
        send(gates.loadGate, { ...byId(runId), query: q }, opts),
      /** Node clocks: their reports, and the nodes provably behind without them. */
      clocks: (runId: string, opts?: CallOptions) => send(runs.clocks, byId(runId), opts),
      /** Lines of a source the run holds, for a re-run to send only the others. */
      eventSource: (runId: string, source: string, opts?: CallOptions) =>
        send(events.sourceLines, { params: { id: runId, source } }, opts),
      /**
       * A batch of events (NDJSON or a JSON array) posted as it is. With an idempotency key
       * the batch is stored once however often it is sent, so a transport may send it again.
       */
      postEvents: (runId: string, batch: Upload<EventBatchQuery>, opts?: CallOptions) =>
        send(
          events.post,
          {
            ...byId(runId),
            query: batch.query,
            body: { contentType: 'application/x-ndjson', ...batch },
            ...once(batch),
          },
          opts,
        ),
      results: (runId: string, q: ResultsQuery = {}, opts?: CallOptions) =>
        send(results.list, { ...byId(runId), query: q }, opts),
      /**
       * A load generator's result file, as it is; format "auto" lets the API tell. With an
       * idempotency key, a retry of a request that may have reached the server is stored once.
       */
      importResults: (runId: string, file: Upload<ImportResultsQuery>, opts?: CallOptions) =>
        send(
          results.import,
          { ...byId(runId), query: file.query, body: file, ...once(file) },
          opts,
        ),
      /** The run's stages over time, from its interval histograms. */
      loadStages: (runId: string, q: LoadStagesQuery = {}, opts?: CallOptions) =>
        send(results.stages, { ...byId(runId), query: q }, opts),
      series: (runId: string, q: SeriesQuery = {}, opts?: CallOptions) =>
        send(metrics.series, { ...byId(runId), query: q }, opts),
      seriesPoints: (runId: string, seriesId: string, q: PointsQuery = {}, opts?: CallOptions) =>
        send(metrics.points, { params: { id: runId, seriesId }, query: q }, opts),
      /** The exemplars remote write sent with a series' points, with their own times and labels. */
      seriesExemplars: (
        runId: string,
        seriesId: string,
        q: ExemplarsQuery = {},
        opts?: CallOptions,
      ) => send(metrics.exemplars, { params: { id: runId, seriesId }, query: q }, opts),
      timeline: (runId: string, q: TimelineQuery = {}, opts?: CallOptions) =>
        send(metrics.timeline, { ...byId(runId), query: q }, opts),
    },
  };
}

export type Client = ReturnType<typeof createClient>;
