// What a person may change about a change's propagation view, kept in the run page's URL so
// that a shared link keeps it: the percentiles marked on the histogram (`?percentiles=`) and
// the threshold of the "within" share and line (`?withinMs=`), and the stage shown where a
// change has several (`?stage=`). Absent: the defaults, and the API is asked exactly what it
// was asked before these existed. `?clock=corrected` draws the histogram and convergence
// curve over clock-corrected latencies.
import { type ClockBasis, DEFAULT_PERCENTILES, DEFAULT_WITHIN_MS } from '@meshbench/schema';

/** The lines the histogram opens with: the median and the two tail figures benchmarks quote. */
export const DEFAULT_MARKED_PERCENTILES: readonly number[] = [50, 96, 99];
/** More lines than this stop reading as lines. */
export const MAX_MARKED_PERCENTILES = 8;

export interface PropagationOptions {
  /** Ascending, no repeats, each in (0, 100]. */
  percentiles: readonly number[];
  withinMs: number;
  /** The stage to show (`received`, `serving`...); absent: the API's default (`applied`). */
  stage?: string | undefined;
  /** The latencies the charts draw; absent: raw. */
  clock?: ClockBasis;
}

export const DEFAULT_PROPAGATION_OPTIONS: PropagationOptions = {
  percentiles: DEFAULT_MARKED_PERCENTILES,
  withinMs: DEFAULT_WITHIN_MS,
};

// The API's own pattern for `?percentiles=` (docs/openapi.json).
const LIST = /^\d+(\.\d+)?(,\d+(\.\d+)?)*$/;

/** "50, 96,99" -> [50, 96, 99]; null when it is not a list the API would take. */
export function parsePercentiles(text: string | null | undefined): number[] | null {
  if (text === null || text === undefined) return null;
  const compact = text.replace(/\s+/g, '');
  if (!LIST.test(compact)) return null;
  const ps = [...new Set(compact.split(',').map(Number))].sort((a, b) => a - b);
  if (ps.some((p) => !(p > 0 && p <= 100))) return null;
  return ps.length <= MAX_MARKED_PERCENTILES ? ps : null;
}

/** "2500" -> 2500; null when it is not a non-negative number of ms. */
export function parseWithinMs(text: string | null | undefined): number | null {
  if (text === null || text === undefined || text.trim() === '') return null;
  const ms = Number(text);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

/** A stage name the API takes (1-100 characters); null otherwise. */
export function parseStage(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  const stage = text.trim();
  return stage.length >= 1 && stage.length <= 100 && !stage.includes('\u0000') ? stage : null;
}

/** The options a URL holds; what is absent or malformed falls back to the default. */
export function optionsFromSearch(search: URLSearchParams): PropagationOptions {
  const options: PropagationOptions = {
    percentiles: parsePercentiles(search.get('percentiles')) ?? DEFAULT_MARKED_PERCENTILES,
    withinMs: parseWithinMs(search.get('withinMs')) ?? DEFAULT_WITHIN_MS,
    ...(search.get('clock') === 'corrected' ? { clock: 'corrected' as const } : {}),
  };
  const stage = parseStage(search.get('stage'));
  if (stage !== null) options.stage = stage;
  return options;
}

/**
 * The stage to ask a change's summary for: the one the URL names when the change has it,
 * else none (the API's default), so one `?stage=` on a page of several changes leaves the
 * changes without that stage as they are.
 */
export function stageFor(
  options: PropagationOptions,
  stages: readonly { stage: string }[],
): string | undefined {
  const { stage } = options;
  return stage !== undefined && stages.some((s) => s.stage === stage) ? stage : undefined;
}

const samePercentiles = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((p, i) => p === b[i]);

/** The URL with these options: a default is left out, so the plain run link stays plain. */
export function optionsToSearch(
  search: URLSearchParams,
  options: PropagationOptions,
): URLSearchParams {
  const next = new URLSearchParams(search);
  if (samePercentiles(options.percentiles, DEFAULT_MARKED_PERCENTILES)) {
    next.delete('percentiles');
  } else {
    next.set('percentiles', options.percentiles.join(','));
  }
  if (options.withinMs === DEFAULT_WITHIN_MS) next.delete('withinMs');
  else next.set('withinMs', String(options.withinMs));
  if (options.stage === undefined) next.delete('stage');
  else next.set('stage', options.stage);
  if (options.clock === 'corrected') next.set('clock', 'corrected');
  else next.delete('clock');
  return next;
}

export function isDefaultOptions(options: PropagationOptions): boolean {
  return (
    options.withinMs === DEFAULT_WITHIN_MS &&
    samePercentiles(options.percentiles, DEFAULT_MARKED_PERCENTILES)
  );
}

/** What the API is asked for: the tables' percentiles and every marked one. */
export function requestedPercentiles(options: PropagationOptions): number[] {
  return [...new Set([...DEFAULT_PERCENTILES, ...options.percentiles])].sort((a, b) => a - b);
}
