// k6 --out json streams of any length, written in the exact line shapes of
// fixtures/k6-out-json.ndjson (its Metric lines and its http_reqs and http_req_duration Point
// lines, only the time and value changed) from seeded latencies, the raw values kept to check
// what meshbench makes of the stream.
import { readFileSync } from 'node:fs';
import { prng } from '../../demo/prng.ts';

const FIXTURE = readFileSync(new URL('./fixtures/k6-out-json.ndjson', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '');

type Line = { type: string; metric: string; data: Record<string, unknown> };

function fixtureLine(type: 'Metric' | 'Point', metric: string): Line {
  const found = FIXTURE.map((l) => JSON.parse(l) as Line).find(
    (l) => l.type === type && l.metric === metric,
  );
  if (!found) throw new Error(`fixtures/k6-out-json.ndjson has no ${type} line of ${metric}`);
  return found;
}

const METRIC_LINES = ['vus', 'http_reqs', 'http_req_duration'].map((m) =>
  JSON.stringify(fixtureLine('Metric', m)),
);
const REQS = fixtureLine('Point', 'http_reqs');
const DURATION = fixtureLine('Point', 'http_req_duration');

/** A point line of the fixture's shape at `time` with `value` (key order kept). */
function point(template: Line, time: string, value: number): string {
  return JSON.stringify({ ...template, data: { ...template.data, time, value } });
}

/** RFC 3339 with nanoseconds, as Go's time.Time marshals: epoch ms + a sub-ms part in ns. */
function goTime(ms: number, ns: number): string {
  const iso = new Date(ms).toISOString(); // 2026-11-26T13:00:00.123Z
  return `${iso.slice(0, 23)}${String(ns).padStart(6, '0')}Z`;
}

export interface K6StreamPlan {
  seed: number;
  /** Epoch ms of the first second; a multiple of 1000, so second s is interval s. */
  startMs: number;
  seconds: number;
  perSecond: number;
  medianUs?: number;
}

/**
 * The stream's lines, one at a time (the Metric lines first, then per request an http_reqs
 * and an http_req_duration point, timed inside its second), and each second's latencies in
 * ms, whole microseconds so that k6's value is exactly what the histogram records.
 */
export function k6Stream(plan: K6StreamPlan): {
  lines: () => Generator<string>;
  seconds: number[][];
} {
  const rnd = prng(plan.seed);
  const seconds: number[][] = [];
  for (let s = 0; s < plan.seconds; s++) {
    const values: number[] = [];
    for (let k = 0; k < plan.perSecond; k++) {
      values.push(Math.max(1, Math.round(rnd.logNormal(plan.medianUs ?? 2000, 0.6))) / 1000);
    }
    seconds.push(values);
  }
  function* lines(): Generator<string> {
    yield* METRIC_LINES;
    for (let s = 0; s < seconds.length; s++) {
      const values = seconds[s] as number[];
      for (let k = 0; k < values.length; k++) {
        const ms = plan.startMs + s * 1000 + Math.floor((k * 1000) / values.length);
        const time = goTime(ms, 250_981 + k);
        yield point(REQS, time, 1);
        yield point(DURATION, time, values[k] as number);
      }
    }
  }
  return { lines, seconds };
}

/** The nearest-rank percentile (rank ceil(p/100 x N)) of values, computed directly. */
export function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  // p/100 x N in floating point can land a hair above a whole rank (0.999 x 32000 =
  // 31968.000000000004): the rank is of the exact product.
  const rank = Math.max(1, Math.ceil((p * sorted.length) / 100 - 1e-9));
  return sorted[rank - 1] as number;
}
