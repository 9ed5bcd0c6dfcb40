// How a duration is written wherever the page prints one (tables, tooltips, axes, deltas):
// in the unit that reads. Exports (CSV, JSON) keep milliseconds; this is for people only.
//
// The rule, on the value as it will be rounded:
//   |ms| < 10,000 ms        -> ms, 3 decimals below 1 ms, 2 below 10 ms, else 1: "999.4 ms"
//   |ms| < 600 s            -> s, 1 decimal: "12.3 s", "599.9 s"
//   otherwise               -> min, 1 decimal: "10.0 min", "2,661.4 min"
// A value that rounds up to the next threshold takes the larger unit (9,999.96 ms is
// "10.0 s", not "10,000.0 ms"). Negative values keep their "-"; a zero is never negative.

/** Fixed so that figures read the same in every browser (and in the e2e test). */
const LOCALE = 'en-US';

/** What a cell shows when there is no value (the same dash as format.ts's NO_VALUE). */
const NO_VALUE = '—';

export type DurationUnit = 'ms' | 's' | 'min';

/** Milliseconds per unit. */
const PER: Record<DurationUnit, number> = { ms: 1, s: 1000, min: 60_000 };

export const MS_LIMIT = 10_000;
export const S_LIMIT = 600;

const formatters = new Map<number, Intl.NumberFormat>();
function fixed(digits: number): Intl.NumberFormat {
  let f = formatters.get(digits);
  if (!f) {
    f = new Intl.NumberFormat(LOCALE, {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    formatters.set(digits, f);
  }
  return f;
}

/** Decimals of a value in ms: enough to tell values apart near zero. */
function msDigits(a: number): number {
  if (a < 1) return 3;
  if (a < 10) return 2;
  return 1;
}

const roundTo = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The unit and decimals a duration is written in (the rule above). */
export function durationUnit(ms: number): { unit: DurationUnit; digits: number } {
  const a = Math.abs(ms);
  if (roundTo(a, msDigits(a)) < MS_LIMIT) return { unit: 'ms', digits: msDigits(a) };
  if (roundTo(a / PER.s, 1) < S_LIMIT) return { unit: 's', digits: 1 };
  return { unit: 'min', digits: 1 };
}

const isValue = (ms: number | null | undefined): ms is number =>
  ms !== null && ms !== undefined && Number.isFinite(ms);

/** The number without its unit, never "-0.0". */
function digitsOf(ms: number, unit: DurationUnit, digits: number): string {
  const text = fixed(digits).format(ms / PER[unit]);
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

/** A duration in the unit that reads: "999.4 ms", "12.3 s", "10.0 min"; the dash for none. */
export function formatDurationMs(ms: number | null | undefined): string {
  if (!isValue(ms)) return NO_VALUE;
  const { unit, digits } = durationUnit(ms);
  return `${digitsOf(ms, unit, digits)} ${unit}`;
}

/** A difference, always signed: "+124.5 ms", "-12.3 s"; a zero (as rounded) is "±0 ms". */
export function formatDurationDelta(ms: number | null | undefined): string {
  if (!isValue(ms)) return NO_VALUE;
  const text = formatDurationMs(ms);
  if (/^-?0(\.0*)? /.test(text)) return '±0 ms';
  return ms > 0 ? `+${text}` : text;
}

/**
 * A bound rounded outwards at the decimals its unit is written with, so that the text never
 * claims a narrower range than the API gave: a lower bound of 11.96 ms reads "11.9 ms", an
 * upper bound of 12,301 ms reads "12.4 s".
 */
export function formatDurationBound(ms: number, side: 'lower' | 'upper'): string {
  const { unit, digits } = durationUnit(ms);
  const f = 10 ** digits / PER[unit];
  const scaled = ms * f;
  // Binary fractions: 12.3 × 10 is 122.99999999999999, which is 123, not 122.
  const near = Math.round(scaled);
  const snapped = Math.abs(scaled - near) < 1e-9 * Math.max(1, Math.abs(scaled)) ? near : scaled;
  const rounded = (side === 'lower' ? Math.floor(snapped) : Math.ceil(snapped)) / f;
  return formatDurationMs(rounded);
}

const threeDigits = new Intl.NumberFormat(LOCALE, { maximumSignificantDigits: 3 });

/**
 * An axis tick or a short label, to three significant digits and no trailing zeros, in the
 * same units: 200 -> "200 ms", 2500 -> "2,500 ms", 10_000 -> "10 s", 1_000_000 -> "16.7 min".
 * A whole number of seconds reads in seconds below 10 s too: 1_000 -> "1 s" (thresholds and
 * log-axis decades are set in round seconds, and the seeds write them so: "within 1 s").
 */
export function formatDurationTick(ms: number): string {
  // Chosen on the value as printed: 9,996 ms prints "10 s", not "10,000 ms".
  const a = Number(Math.abs(ms).toPrecision(3));
  const wholeSeconds = a >= PER.s && a % PER.s === 0;
  const unit: DurationUnit =
    a < MS_LIMIT && !wholeSeconds ? 'ms' : a < S_LIMIT * PER.s ? 's' : 'min';
  return `${threeDigits.format(ms / PER[unit])} ${unit}`;
}

/** A span, the unit said once when both ends share it: "10.0 – 20.0 ms", "9,950.0 ms – 10.1 s". */
export function formatDurationRange(fromMs: number, toMs: number): string {
  const from = formatDurationMs(fromMs);
  const to = formatDurationMs(toMs);
  const unit = (t: string) => t.slice(t.lastIndexOf(' '));
  return unit(from) === unit(to)
    ? `${from.slice(0, -unit(from).length)} – ${to}`
    : `${from} – ${to}`;
}
