// A level series' (gauge, up-down counter) peak over the run and its steady value after
// the scale-up settled: the numbers a scale-up benchmark quotes for control-plane CPU and
// memory ("up to about 43 % while scaling, 5-10 % after"). A counter of CPU seconds (Go's and
// Envoy's process_cpu_seconds_total, as Istio and Linkerd export it) is read as cores first.
import type { StoredRow } from './series-math.ts';

/** A level row as normalize() gives it: its time, value and the interval's max. */
export interface LevelRow {
  tMs: number;
  value: number;
  max: number | null;
  /** A rate over an interval (cores from CPU seconds): where it began; steady only from there. */
  fromMs?: number | null;
}

/** Whether a level row counts toward the steady value from `steadyFromMs` (at or after it). */
export const isSteady = (r: LevelRow, steadyFromMs: number) => (r.fromMs ?? r.tMs) >= steadyFromMs;

/**
 * A counter of CPU time in seconds (`process_cpu_seconds_total`, unit s): what it counts only
 * reads as a rate, in cores. The web's timeline draws it so by the same rule.
 */
export function isCpuSecondsCounter(s: { name: string; kind: string; unit: string | null }) {
  return (
    s.kind === 'counter' &&
    /cpu/i.test(s.name) &&
    (s.unit === 's' || /(^|[._])seconds([._]total)?$/i.test(s.name))
  );
}

/**
 * A CPU-seconds counter's stored rows as cores: per cumulative stream (one OTLP start time),
 * each point's increase over the time since the stream's previous point (a drop is a restart:
 * its value since the stream's start); the first point after the run's start counted from the
 * previous point before it, else, when the stream began in the run, from its start. A delta
 * row (StatsD, OTLP delta) is its sum over its interval. Streams at one time add up (replicas).
 * Each row carries the interval it is the rate of (fromMs .. tMs).
 */
export function cpuCoresRows(rows: readonly StoredRow[], runStartMs: number): LevelRow[] {
  const out = new Map<string, LevelRow>();
  const put = (fromMs: number, tMs: number, cpuSeconds: number) => {
    if (!(tMs > fromMs)) return;
    const value = cpuSeconds / ((tMs - fromMs) / 1000);
    const key = `${fromMs} ${tMs}`;
    const seen = out.get(key);
    if (seen) seen.value += value;
    else out.set(key, { tMs, value, max: null, fromMs });
  };
  const streams = new Map<number, StoredRow[]>();
  for (const r of rows) {
    if (r.startAtMs === null) {
      if (r.tMs >= runStartMs && r.sum !== null) put(r.tMs, r.tMs + r.intervalMs, r.sum);
      continue;
    }
    const s = streams.get(r.startAtMs) ?? [];
    s.push(r);
    streams.set(r.startAtMs, s);
  }
  for (const [startAtMs, stream] of streams) {
    stream.sort((a, b) => a.tMs - b.tMs);
    let prev: StoredRow | null = null;
    for (const r of stream) {
      const v = r.last ?? 0;
      if (r.tMs >= runStartMs) {
        if (prev && v >= (prev.last ?? 0)) put(prev.tMs, r.tMs, v - (prev.last ?? 0));
        else if (prev || startAtMs >= runStartMs) put(startAtMs, r.tMs, v);
      }
      prev = r;
    }
  }
  return [...out.values()].sort((a, b) => a.tMs - b.tMs);
}

/**
 * peak: the largest value any row held (its interval's max when kept, so a spike between
 * flushes counts); steady: the mean of the rows' values at or after `steadyFromMs` (the end of
 * the ramp, lifecycle.ts steadyStart; a rate's from its interval's start), null without that
 * time or without rows after it. Rows whose value is not a number (an unresolved delta) are
 * skipped.
 */
export function peakAndSteady(
  rows: readonly LevelRow[],
  steadyFromMs: number | null,
): { peak: number | null; steady: number | null } {
  let peak = Number.NEGATIVE_INFINITY;
  let sum = 0;
  let n = 0;
  for (const r of rows) {
    if (!Number.isFinite(r.value)) continue;
    const hi = r.max !== null && Number.isFinite(r.max) ? Math.max(r.max, r.value) : r.value;
    if (hi > peak) peak = hi;
    if (steadyFromMs !== null && isSteady(r, steadyFromMs)) {
      sum += r.value;
      n++;
    }
  }
  return { peak: Number.isFinite(peak) ? peak : null, steady: n > 0 ? sum / n : null };
}
