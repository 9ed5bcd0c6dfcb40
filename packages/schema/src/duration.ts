// How a duration is written wherever a person reads one (the web's tables, tooltips, axes,
// deltas; the API's gate and alert reasons, a report's description): in the unit that reads.
// One module, in this browser-safe package, so the page and the API write a time alike. Exports (CSV, JSON) keep milliseconds; this is for
// people only.
//
// The rule, on the value as it will be rounded:
//   |ms| < 1,000 ms         -> ms, 3 decimals below 1 ms, 2 below 10 ms, else 1: "999.4 ms"
//   |ms| < 1,000 s          -> s, 4 significant digits: "1.234 s", "12.35 s", "295.0 s"
//   otherwise               -> min, 4 significant digits: "16.67 min", "166.7 min", whole
//                              minutes from 1,000 min: "2,661 min"
// A value that rounds up to the next threshold takes the larger unit (999.96 ms is "1.000 s",
// not "1,000.0 ms"). Negative values keep their "-"; a zero is never negative.
// An axis is written in one unit, the one its largest tick takes (durationTickFormatter), so
// that no axis reads "1,500 ms, 2 s".

/** Fixed so that figures read the same in every browser (and in the e2e test). */
const LOCALE = 'en-US';

/** What a cell shows when there is no value (the same dash as format.ts's NO_VALUE). */
const NO_VALUE = '—';

export type DurationUnit = 'ms' | 's' | 'min';

/** Milliseconds per unit. */
const PER: Record<DurationUnit, number> = { ms: 1, s: 1000, min: 60_000 };

/** Below this many ms a duration is written in ms; below this many s, in s. */
export const MS_LIMIT = 1000;
export const S_LIMIT = 1000;

/** Significant digits of a duration in s or min. */
const SIGNIFICANT = 4;

const formatters = new Map<number, Intl.NumberFormat>();
/** A number formatter with exactly `digits` decimals in the UI's fixed locale (kept per digits). */
export function fixed(digits: number): Intl.NumberFormat {
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

/** Decimals that give SIGNIFICANT digits to a value of 1 or more in its unit (none past them). */
function sigDigits(a: number): number {
  return Math.max(0, SIGNIFICANT - 1 - Math.floor(Math.log10(a)));
}

const roundTo = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Decimals for `a` (in its unit) with SIGNIFICANT digits, checked on the rounded value. */
function sigDigitsRounded(a: number): number {
  const d = sigDigits(Math.max(1, a));
  // 9.9996 s rounds to 10.000: ten, which takes one decimal fewer ("10.00 s").
  return sigDigits(Math.max(1, roundTo(a, d)));
}

/** The unit and decimals a duration is written in (the rule above). */
export function durationUnit(ms: number): { unit: DurationUnit; digits: number } {
  const a = Math.abs(ms);
  if (roundTo(a, msDigits(a)) < MS_LIMIT) return { unit: 'ms', digits: msDigits(a) };
  const s = a / PER.s;
  if (roundTo(s, sigDigitsRounded(s)) < S_LIMIT) return { unit: 's', digits: sigDigitsRounded(s) };
  return { unit: 'min', digits: sigDigitsRounded(a / PER.min) };
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

/** The unit a tick or short label of this size takes (the same thresholds as a cell). */
function tickUnit(a: number): DurationUnit {
  return a < MS_LIMIT ? 'ms' : a < S_LIMIT * PER.s ? 's' : 'min';
}

/**
 * A short label (a threshold, a mark), to three significant digits and no trailing zeros:
 * 200 -> "200 ms", 1_000 -> "1 s", 1_500 -> "1.5 s", 239_644 -> "240 s", 1_000_000 ->
 * "16.7 min". The unit is chosen on the value as printed: 999.6 ms prints "1 s".
 */
export function formatDurationTick(ms: number): string {
  const unit = tickUnit(Number(Math.abs(ms).toPrecision(3)));
  return `${threeDigits.format(ms / PER[unit])} ${unit}`;
}

/** The one unit of an axis: the unit its largest tick takes. */
export function durationAxisUnit(ticks: readonly number[]): DurationUnit {
  const finite = ticks.filter((t) => Number.isFinite(t)).map((t) => Math.abs(t));
  return tickUnit(finite.length > 0 ? Math.max(...finite) : 0);
}

/**
 * The tick formatter of an axis of durations: every tick in the axis's one unit, to three
 * significant digits: [0, 500, 1000, 1500, 2000] -> "0 s", "0.5 s", "1 s", "1.5 s", "2 s".
 */
export function durationTickFormatter(ticks: readonly number[]): (ms: number) => string {
  const unit = durationAxisUnit(ticks);
  return (ms) => `${threeDigits.format(ms / PER[unit])} ${unit}`;
}

/**
 * A span, the unit said once when both ends share it: "10.0 – 20.0 ms", "9,950.0 ms – 10.1 s";
 * a span from zero starts at "0", which needs no unit or decimals: "0 – 500.0 ms".
 */
export function formatDurationRange(fromMs: number, toMs: number): string {
  if (fromMs === 0) return `0 – ${formatDurationMs(toMs)}`;
  const from = formatDurationMs(fromMs);
  const to = formatDurationMs(toMs);
  const unit = (t: string) => t.slice(t.lastIndexOf(' '));
  return unit(from) === unit(to)
    ? `${from.slice(0, -unit(from).length)} – ${to}`
    : `${from} – ${to}`;
}
