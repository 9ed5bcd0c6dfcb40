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
