// The web app's requests as the pages ask for them, turned into the API's queries and URLs
// by @meshbench/client's `paths`, so that links (CSV, NDJSON) and fetches agree.
import {
  API_BASE,
  type RunListQuery as ApiRunListQuery,
  type PropagationQuery,
  paths,
  type RunPropagationQuery,
  type TailQuery,
} from '@meshbench/client';
import {
  type ClockBasis,
  DEFAULT_PERCENTILES,
  DEFAULT_WITHIN_MS,
  type HistogramRangeChoice,
  type HistogramScale,
} from '@meshbench/schema';

export { API_BASE };

export interface RunFilters {
  mesh?: string | undefined;
  benchmark?: string | undefined;
  scenario?: string | undefined;
}

export interface PropagationParams {
  scale?: HistogramScale;
  bins?: number;
  fromMs?: number | undefined;
  toMs?: number | undefined;
  /** auto: the API chooses the histogram's range (the one the run page draws). */
  range?: HistogramRangeChoice | undefined;
  format?: 'csv';
  /** Default: the percentiles the tables show. */
  percentiles?: readonly number[] | undefined;
  /** Default: the 1 s share the benchmarks quote. */
  withinMs?: number | undefined;
  /** Default: the API's (`applied`, or the stage a change has). */
  stage?: string | undefined;
  /** Default raw; corrected: node clock offsets taken out (runs with clock reports). */
  clock?: ClockBasis | undefined;
}

export function runsQuery(filters: RunFilters = {}): ApiRunListQuery {
  return { mesh: filters.mesh, benchmark: filters.benchmark, scenario: filters.scenario };
}

export function runsUrl(filters: RunFilters = {}): string {
  return `${API_BASE}${paths.runs(runsQuery(filters))}`;
}

export function runUrl(runId: string): string {
  return `${API_BASE}${paths.run(runId)}`;
}

export function changesUrl(runId: string): string {
  return `${API_BASE}${paths.changes(runId)}`;
}

/** A churn run's propagation over all its changes, as JSON (the route has no CSV). */
export function runPropagationUrl(runId: string, query: RunPropagationQuery = {}): string {
  return `${API_BASE}${paths.runPropagation(runId, query)}`;
}

/** Always says which percentiles and which share: the tables' and 1 s unless asked others. */
export function propagationQuery(p: PropagationParams = {}): PropagationQuery {
  return {
    percentiles: (p.percentiles ?? DEFAULT_PERCENTILES).join(','),
    withinMs: p.withinMs ?? DEFAULT_WITHIN_MS,
    bins: p.bins,
    scale: p.scale,
    fromMs: p.fromMs,
    toMs: p.toMs,
    range: p.range,
    format: p.format,
    stage: p.stage,
    clock: p.clock,
  };
}

export function propagationUrl(runId: string, changeId: string, p: PropagationParams = {}): string {
  return `${API_BASE}${paths.propagation(runId, changeId, propagationQuery(p))}`;
}

/** The change as a Perfetto trace: a slice per proxy under a track per node. */
export function perfettoTraceUrl(runId: string, changeId: string): string {
  return `${API_BASE}${paths.perfettoTrace(runId, changeId)}`;
}

// --- Browsing, comparing and sharing (issue 4) ---

/** The runs list as the page asks for it: every filter the API takes, a sort and a page. */
export interface RunListQuery {
  mesh?: string | undefined;
  version?: string | undefined;
  benchmark?: string | undefined;
  scenario?: string | undefined;
  platform?: string | undefined;
  status?: string | undefined;
  /** "k:v", all must match. */
  labels?: string[] | undefined;
  /** RFC 3339: started at or after. */
  from?: string | undefined;
  /** RFC 3339: started before. */
  to?: string | undefined;
  q?: string | undefined;
  sort?: string | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

/** The page's list request as the API's query: labels go as repeated `label`. */
export function runListQuery(r: RunListQuery): ApiRunListQuery {
  return {
    mesh: r.mesh,
    version: r.version,
    benchmark: r.benchmark,
    scenario: r.scenario,
    platform: r.platform,
    status: r.status,
    label: r.labels,
    from: r.from,
    to: r.to,
    q: r.q,
    sort: r.sort,
    limit: r.limit,
    offset: r.offset,
  };
}

export function runListUrl(r: RunListQuery): string {
  return `${API_BASE}${paths.runs(runListQuery(r))}`;
}

export function runFacetsUrl(): string {
  return `${API_BASE}${paths.runFacets()}`;
}

export interface TailParams {
  thresholdMs?: number | undefined;
  thresholdP?: number | undefined;
  limit?: number | undefined;
  format?: 'csv';
}

export function tailQuery(p: TailParams = {}): TailQuery {
  return { thresholdMs: p.thresholdMs, thresholdP: p.thresholdP, limit: p.limit, format: p.format };
}

export function changeTailUrl(runId: string, changeId: string, p: TailParams = {}): string {
  return `${API_BASE}${paths.tail(runId, changeId, tailQuery(p))}`;
}

export function runResultsUrl(runId: string): string {
  return `${API_BASE}${paths.results(runId)}`;
}

export function reportsUrl(): string {
  return `${API_BASE}${paths.reports()}`;
}

export function reportUrl(slug: string): string {
  return `${API_BASE}${paths.report(slug)}`;
}

/** The page of a compare view: the first run is the baseline. */
export function comparePath(runIds: string[]): string {
  return `/compare?runs=${runIds.map(encodeURIComponent).join(',')}`;
}

// --- Run page: raw events and result uploads (issue 6) ---

/** The run's raw events as NDJSON, in the form POST /events takes. */
export function runEventsUrl(runId: string): string {
  return `${API_BASE}${paths.events(runId)}`;
}

/** Where a runner's result file is posted as it is; format "auto" lets the API tell. */
export function resultsImportUrl(runId: string, format: string): string {
  return `${API_BASE}${paths.results(runId, { format })}`;
}

// --- Run page: scale-up timeline and gate verdict (issue 3) ---

/** Lifecycle phases and metric series on one axis, at most `points` per line. */
export function runTimelineUrl(runId: string, points = 1000): string {
  return `${API_BASE}${paths.timeline(runId, { points })}`;
}

/** The run's metric series (StatsD and OTLP), each with its stats over the run's window. */
export function runSeriesUrl(runId: string): string {
  return `${API_BASE}${paths.series(runId)}`;
}

/** The thresholds' verdict on a finished run (404 when none applied). */
export function runGateUrl(runId: string): string {
  return `${API_BASE}${paths.gate(runId)}`;
}
