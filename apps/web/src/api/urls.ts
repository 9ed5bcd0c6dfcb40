// The API's URLs, built in one place so that links (CSV) and fetches agree.
import { DEFAULT_PERCENTILES, DEFAULT_WITHIN_MS, type HistogramScale } from '@meshbench/schema';

export const API_BASE = '/api/v1';

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
  format?: 'csv';
}

const enc = encodeURIComponent;

function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function runsUrl(filters: RunFilters = {}): string {
  return `${API_BASE}/runs${query({ mesh: filters.mesh, benchmark: filters.benchmark, scenario: filters.scenario })}`;
}

export function runUrl(runId: string): string {
  return `${API_BASE}/runs/${enc(runId)}`;
}

export function changesUrl(runId: string): string {
  return `${runUrl(runId)}/changes`;
}

/** Always asks for the percentiles the tables show and the 1 s share the benchmarks quote. */
export function propagationUrl(runId: string, changeId: string, p: PropagationParams = {}): string {
  return `${changesUrl(runId)}/${enc(changeId)}/propagation${query({
    percentiles: DEFAULT_PERCENTILES.join(','),
    withinMs: DEFAULT_WITHIN_MS,
    bins: p.bins,
    scale: p.scale,
    fromMs: p.fromMs,
    toMs: p.toMs,
    format: p.format,
  })}`;
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

export function runListUrl(r: RunListQuery): string {
  const q = new URLSearchParams();
  const set = (k: string, v: string | number | undefined) => {
    if (v !== undefined && v !== '') q.set(k, String(v));
  };
  set('mesh', r.mesh);
  set('version', r.version);
  set('benchmark', r.benchmark);
  set('scenario', r.scenario);
  set('platform', r.platform);
  set('status', r.status);
  for (const label of r.labels ?? []) q.append('label', label);
  set('from', r.from);
  set('to', r.to);
  set('q', r.q);
  set('sort', r.sort);
  set('limit', r.limit);
  set('offset', r.offset);
  const s = q.toString();
  return `${API_BASE}/runs${s ? `?${s}` : ''}`;
}

export function runFacetsUrl(): string {
  return `${API_BASE}/runs/facets`;
}

export interface TailParams {
  thresholdMs?: number | undefined;
  thresholdP?: number | undefined;
  limit?: number | undefined;
  format?: 'csv';
}

export function changeTailUrl(runId: string, changeId: string, p: TailParams = {}): string {
  return `${changesUrl(runId)}/${enc(changeId)}/tail${query({
    thresholdMs: p.thresholdMs,
    thresholdP: p.thresholdP,
    limit: p.limit,
    format: p.format,
  })}`;
}

export function runResultsUrl(runId: string): string {
  return `${runUrl(runId)}/results`;
}

export function reportsUrl(): string {
  return `${API_BASE}/reports`;
}

export function reportUrl(slug: string): string {
  return `${reportsUrl()}/${enc(slug)}`;
}

/** The page of a compare view: the first run is the baseline. */
export function comparePath(runIds: string[]): string {
  return `/compare?runs=${runIds.map(enc).join(',')}`;
}

// --- Run page: raw events and result uploads (issue 6) ---

/** The run's raw events as NDJSON, in the form POST /events takes. */
export function runEventsUrl(runId: string): string {
  return `${runUrl(runId)}/events`;
}

/** Where a runner's result file is posted as it is; format "auto" lets the API tell. */
export function resultsImportUrl(runId: string, format: string): string {
  return `${runResultsUrl(runId)}${query({ format })}`;
}

// --- Run page: scale-up timeline and gate verdict (issue 3) ---

/** Lifecycle phases and metric series on one axis, at most `points` per line. */
export function runTimelineUrl(runId: string, points = 1000): string {
  return `${runUrl(runId)}/timeline${query({ points })}`;
}

/** The run's metric series (StatsD and OTLP), each with its stats over the run's window. */
export function runSeriesUrl(runId: string): string {
  return `${runUrl(runId)}/series`;
}

/** The thresholds' verdict on a finished run (404 when none applied). */
export function runGateUrl(runId: string): string {
  return `${runUrl(runId)}/gate`;
}
