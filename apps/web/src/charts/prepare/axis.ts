// Axis arithmetic: round range ends and tick positions for linear and log time axes. The
// rounding of range ends is the API's too (@meshbench/schema's histogram-range.ts).
import { cleanDecimal, decadeFloor, niceCeil, roundUpTo } from '@meshbench/schema';

export { decadeFloor, niceCeil };

/** Mantissas of a tick step: the usual 1-2-2.5-5 series. */
const TICK_STEPS = [1, 2, 2.5, 5, 10];

const clean = cleanDecimal;

/** Ticks at multiples of a 1-2-2.5-5 step, about `target` of them, inside [from, to]. */
export function linearTicks(from: number, to: number, target = 6): number[] {
  if (!(to > from)) return [from];
  const step = roundUpTo((to - from) / target, TICK_STEPS);
  const ticks: number[] = [];
  for (let i = Math.ceil(from / step); i * step <= to + step * 1e-9; i++) {
    ticks.push(clean(i * step) + 0); // + 0 turns -0 into 0
  }
  return ticks;
}

/** Ticks at the powers of ten inside [from, to] (from > 0); adds 2x and 5x on short ranges. */
export function logTicks(from: number, to: number): number[] {
  if (!(from > 0) || !(to > from)) return [from];
  const decades: number[] = [];
  for (let e = Math.ceil(Math.log10(from) - 1e-9); 10 ** e <= to * (1 + 1e-9); e++) {
    decades.push(clean(10 ** e));
  }
  if (decades.length >= 3) return decades;
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(from)); 10 ** e <= to; e++) {
    for (const m of [1, 2, 5]) {
      const t = clean(m * 10 ** e);
      if (t >= from * (1 - 1e-9) && t <= to * (1 + 1e-9)) ticks.push(t);
    }
  }
  return ticks;
}

/** About how wide a tick label of `chars` characters is at the axes' 12 px type, in px. */
const TICK_CHAR_PX = 7;
/** The least space between two tick labels, in px. */
const TICK_GAP_PX = 10;

/**
 * How many ticks apart the kept ticks are so that their labels fit side by side on an axis
 * `widthPx` wide: the smallest k that leaves room for the widest label, so that narrow charts
 * (small multiples, a printed page) keep evenly spaced labels instead of overlapping ones.
 * The positions are taken as evenly spread, as decades on a log axis and steps on a linear
 * one are. 1: every tick.
 */
export function tickStep(
  ticks: number[],
  widthPx: number,
  label: (tick: number) => string,
): number {
  if (ticks.length < 3) return 1;
  const widest = Math.max(...ticks.map((t) => label(t).length)) * TICK_CHAR_PX + TICK_GAP_PX;
  const slot = widthPx / (ticks.length - 1);
  return Math.max(Math.ceil(widest / Math.max(slot, 1)), 1);
}

/** Every `step`-th tick, from the first. */
export const everyNth = (ticks: number[], step: number) =>
  step <= 1 ? ticks : ticks.filter((_, i) => i % step === 0);
