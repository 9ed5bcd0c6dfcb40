// bench/change-points: the change points of one series' whole history, 1,000 runs (the
// E-Divisive means split/merge of apps/api/src/domain/change-points.ts, ported from Apache
// Otava), computed from scratch each time. Baseline, same run: the sum of all pairwise
// distances of the 1,000 values (the O(n^2) pass the original, unwindowed E-Divisive makes
// once per candidate). Budget (issue 16): <= 200 ms for 1,000 runs.
// Run: npx tsx change-points.ts [runs]
import { changePoints } from '@meshbench/api/change-points';
import { budget, reportBudgets } from './lib/budget.ts';

const RUNS = Number(process.argv[2] ?? 1000);

/** A P99 history: levels that move every ~150 runs, noise of ~2 %, a spike now and then. */
function history(seed: number): number[] {
  let s = seed >>> 0;
  const rand = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const out: number[] = [];
  let level = 800;
  for (let i = 0; i < RUNS; i++) {
    if (i > 0 && i % 150 === 0) level *= 0.9 + rand() * 0.25;
    const noise = (rand() + rand() + rand() - 1.5) * 0.04 * level;
    out.push(level + noise + (rand() < 0.01 ? level : 0));
  }
  return out;
}

function pairwise(values: number[]): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++)
    for (let j = i + 1; j < values.length; j++)
      sum += Math.abs((values[i] as number) - (values[j] as number));
  return sum;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const series = Array.from({ length: 7 }, (_, i) => history(i + 1));
const detect: number[] = [];
const base: number[] = [];
let found = 0;
for (const values of series) {
  let t = performance.now();
  pairwise(values);
  base.push(performance.now() - t);
  t = performance.now();
  found += changePoints(values, { windowLen: 50, maxPValue: 0.001, minSegment: 3 }).points.length;
  detect.push(performance.now() - t);
}
const ms = median(detect);
const baseMs = median(base);
console.log(`change-points: ${RUNS} runs, ${series.length} series, ${found} change points found`);
console.log(
  `  whole history    ${ms.toFixed(1)} ms (median of ${series.length})  budget <= 200 ms: ${budget('change points of 1,000 runs <= 200 ms', ms <= 200)}`,
);
console.log(
  `  baseline         ${baseMs.toFixed(1)} ms (all pairwise distances once)  ratio ${(ms / baseMs).toFixed(2)}x`,
);
reportBudgets('change-points');
