// Which range a latency histogram is drawn over when the API chooses it (`?range=auto`):
// one rule, in this browser-safe package, for the API that bins the histogram and the page
// that draws it (the stage-gap panel still asks for its range from its summary). The linear
// view shows the body of the distribution; the log view shows the whole tail.

/** Mantissas a rounded-up range end may take: fine enough not to waste half the chart. */
const END_STEPS = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];

/** Removes the binary noise of mantissa x power-of-ten products (1.2 * 0.1 = 0.12000000000000001). */
export const cleanDecimal = (n: number) => Number(n.toPrecision(12));

/** The smallest of `steps` x a power of ten at or above x (x > 0); 0 for x <= 0 or not finite. */
export function roundUpTo(x: number, steps: number[]): number {
  if (!(x > 0) || !Number.isFinite(x)) return 0;
  const power = 10 ** Math.floor(Math.log10(x));
  for (const step of steps) {
    const candidate = cleanDecimal(step * power);
    if (candidate >= x) return candidate;
  }
  return cleanDecimal(10 * power);
}

/** The smallest round number at or above x (x > 0): 962.37 -> 1000, 239644 -> 250000. */
export function niceCeil(x: number): number {
  return roundUpTo(x, END_STEPS);
}

/** The power of ten at or below x (x > 0): 17.162 -> 10, 0.5 -> 0.1. */
export function decadeFloor(x: number): number {
  return cleanDecimal(10 ** Math.floor(Math.log10(x)));
}

/**
 * A tail is long when P99 is this many times P90: stretching the linear axis to P99 would
 * then squeeze the body into one bar (the Consul benchmark: P90 0.4 s, P99 minutes).
 */
export const LONG_TAIL_RATIO = 4;

export interface HistogramRange {
  fromMs?: number;
  toMs?: number;
}

const percentileMs = (percentiles: readonly { p: number; ms: number }[], p: number) =>
  percentiles.find((x) => x.p === p)?.ms;

/**
 * The linear view spans 0 to P99 rounded up. With a long tail it stops instead at the
 * largest percentile (up to P99) that is still within LONG_TAIL_RATIO x P90, rounded up;
 * what lies beyond is counted as overflow and shown in the log view. It reaches at least
 * `withinMs`, so that the "within" line is on the chart. Without P99 among `percentiles`,
 * the largest of them stands for it.
 * Null when there is nothing to draw (no percentiles, or all at or before the change).
 */
export function linearHistogramRange(
  percentiles: readonly { p: number; ms: number }[],
  withinMs?: number,
): Required<HistogramRange> | null {
  const p99 = percentileMs(percentiles, 99) ?? Math.max(...percentiles.map((x) => x.ms));
  if (!Number.isFinite(p99)) return null;
  let end = p99;
  const p90 = percentileMs(percentiles, 90);
  if (p90 !== undefined && p90 > 0 && p99 > LONG_TAIL_RATIO * p90) {
    const body = percentiles.filter((x) => x.p <= 99 && x.ms <= LONG_TAIL_RATIO * p90);
    end = Math.max(p90, ...body.map((x) => x.ms));
  }
  if (withinMs !== undefined && end > 0 && withinMs > end) end = withinMs;
  const toMs = niceCeil(end);
  return toMs > 0 ? { fromMs: 0, toMs } : null;
}

/**
 * Where the log view starts: with every latency positive, at the minimum (no range asked);
 * otherwise the API's floor (0.001 ms) would spend half the bins on empty decades, so at the
 * decade of the smallest positive latency (`smallestPositiveMs`, none when every one is <= 0).
 */
export function logHistogramRange(
  minMs: number | null,
  smallestPositiveMs: number | undefined,
): HistogramRange {
  if (minMs === null || minMs > 0) return {};
  return smallestPositiveMs !== undefined ? { fromMs: decadeFloor(smallestPositiveMs) } : {};
}
