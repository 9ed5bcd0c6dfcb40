// How a percentile says what it is: exact, or an estimate with its bound (packages/schema's
// accuracy.ts), as the text of a cell, its "~" mark and its tooltip, and the legend line of
// a table that holds estimates. Pure, so that every table decides the same way.
import type { PercentileAccuracy } from '@meshbench/schema';
import { formatDurationBound, formatDurationMs } from './duration.ts';
import { NO_VALUE } from './format.ts';

/** The accuracy fields as a response carries them: any may be absent (older producers). */
export type Accuracy = Partial<PercentileAccuracy>;

/** exact: the API says so; estimate: it says not; unknown: it does not say (never shown as exact). */
export type Certainty = 'exact' | 'estimate' | 'unknown';

/** The visible mark of an estimate. */
export const ESTIMATE_MARK = '~';

export const EXACT_DESCRIPTION = 'exact (nearest rank over all recorded values)';

export function certaintyOf(a: Accuracy | null | undefined): Certainty {
  if (a?.exact === true) return 'exact';
  if (a?.exact === false) return 'estimate';
  return 'unknown';
}

/** A bound in its unit, rounded away from the value it bounds ("12 ms", "4.1 MiB"). */
export type BoundFormat = (n: number, side: 'lower' | 'upper') => string;

/**
 * A latency bound rounded outwards at the decimals of the unit it is written in (see
 * duration.ts), so that the text never claims a narrower range than the API gave: a lower
 * bound of 11.96 ms reads "11.9 ms", an upper bound of 12,301 ms "12.4 s".
 */
export const formatMsBound: BoundFormat = formatDurationBound;

const sig3 = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });

/** A relative error as a percentage, rounded up to three significant digits: 0.01 -> "1 %". */
export function formatRelativeError(fraction: number): string {
  const pct = Math.abs(fraction) * 100;
  if (pct === 0) return '0 %';
  const step = 10 ** (Math.floor(Math.log10(pct)) - 2);
  const up = Math.ceil(Number((pct / step).toPrecision(12))) * step;
  return `${sig3.format(up)} %`;
}

/** How the tooltip opens, by method: most are estimators, two are numbers taken as given. */
function lead(method: Accuracy['method']): string {
  switch (method) {
    case 'reported':
      return 'as the tool reported it (computed by the tool)';
    case 'summary':
      return 'an OTLP Summary quantile as the client sent it';
    case 'raw':
      // Only an estimate when the tool recorded each value to a resolution (raw-sample files).
      return "nearest rank over the tool's samples, each recorded to its resolution";
    case undefined:
      return 'estimated';
    default:
      return `estimated by ${method}`;
  }
}

/**
 * The tooltip and screen-reader text: "exact (nearest rank over all recorded values)",
 * "estimated by explicit-histogram: between 12 ms and 15 ms", "estimated by ddsketch: within
 * ±1 %"; null when the response does not say (nothing is claimed then).
 */
export function describeAccuracy(
  a: Accuracy | null | undefined,
  formatBound: BoundFormat,
): string | null {
  const certainty = certaintyOf(a);
  if (certainty === 'exact') return EXACT_DESCRIPTION;
  if (certainty === 'unknown' || !a) return null;
  const parts: string[] = [];
  const { lower, upper, relativeError } = a;
  if (lower !== undefined || upper !== undefined) {
    const lo = lower ?? null;
    const hi = upper ?? null;
    if (lo !== null && hi !== null) {
      parts.push(`between ${formatBound(lo, 'lower')} and ${formatBound(hi, 'upper')}`);
    } else if (lo !== null) {
      parts.push(`at least ${formatBound(lo, 'lower')}, no upper bound`);
    } else if (hi !== null) {
      parts.push(`at most ${formatBound(hi, 'upper')}, no lower bound`);
    } else {
      parts.push('unbounded');
    }
  }
  if (relativeError !== undefined && Number.isFinite(relativeError)) {
    parts.push(`within ±${formatRelativeError(relativeError)}`);
  }
  if (parts.length === 0) parts.push('no bound known');
  return `${lead(a.method)}: ${parts.join('; ')}`;
}

export interface MarkedPercentile {
  /** What the cell shows: "~12.3 ms" for an estimate, "12.3 ms" otherwise, the dash for none. */
  text: string;
  /** The value without its mark. */
  value: string;
  mark: '' | typeof ESTIMATE_MARK;
  certainty: Certainty;
  /** Tooltip and accessible text; null when there is no value or nothing is known. */
  description: string | null;
}

/** A percentile as a cell shows it, with its mark and its tooltip. */
export function markPercentile(
  value: number | null | undefined,
  accuracy: Accuracy | null | undefined,
  format: (n: number | null | undefined) => string,
  formatBound: BoundFormat,
): MarkedPercentile {
  const text = format(value);
  const certainty = certaintyOf(accuracy);
  if (text === NO_VALUE) {
    return { text, value: text, mark: '', certainty, description: null };
  }
  const mark = certainty === 'estimate' ? ESTIMATE_MARK : '';
  return {
    text: `${mark}${text}`,
    value: text,
    mark,
    certainty,
    description: describeAccuracy(accuracy, formatBound),
  };
}

/** A latency percentile in a cell, value and bound in the unit that reads: "~962.4 ms". */
export function markMsPercentile(
  value: number | null | undefined,
  accuracy: Accuracy | null | undefined,
): MarkedPercentile {
  return markPercentile(value, accuracy, formatDurationMs, formatMsBound);
}

/** The tooltip of a number computed from an estimate (added latency, a Δ, P99 / P50). */
export const FROM_ESTIMATE =
  'computed from an estimated percentile: see the bounds of the percentiles it is taken from';

/** A number computed from percentiles, marked when any of them is an estimate. */
export function markDerived(text: string, fromEstimate: boolean): string {
  return fromEstimate && text !== NO_VALUE ? `${ESTIMATE_MARK}${text}` : text;
}

/**
 * The line under a table that holds estimates; null when it holds none (a table of exact
 * values needs no legend). Unmarked percentiles are called exact only when all of them are.
 */
export function accuracyLegend(certainties: Iterable<Certainty>): string | null {
  const seen = new Set(certainties);
  if (!seen.has('estimate')) return null;
  const rest = seen.has('unknown')
    ? 'Unmarked percentiles: exact where their tooltip says so, else as the source gave them.'
    : 'Unmarked percentiles are exact (nearest rank over all recorded values).';
  return `${ESTIMATE_MARK} marks an estimated percentile; hover it for its bound. ${rest}`;
}
