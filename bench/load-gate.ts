// bench/load-gate: a load gate judged on HdrHistograms costs what their buckets cost, not what
// they count. The same two distributions (20,000 samples each, 3 significant digits) are
// judged once as recorded (20,000 requests) and once with every count scaled to 10^9
// requests; the budget is that the scaled judgement takes no more than 3x the unscaled one
// (a cost per request would be 50,000x). The verdicts are checked in
// apps/api/src/domain/load-gate.test.ts.
// Run: npx tsx load-gate.ts
import {
  countedOf,
  decodeHdr,
  HdrMerger,
  judgeLoadStep,
  type LoadStepSide,
  parseLoadRule,
  prng,
} from '@meshbench/api/load-gate';
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { budget, reportBudgets } from './lib/budget.ts';

const STEP = { mode: 'both', connections: 64, targetRps: 1000 };
const REPEATS = 7;

function hdrStep(valuesUs: number[], scaleCounts: number): LoadStepSide {
  const h = build({ numberOfSignificantValueDigits: 3 });
  for (const v of valuesUs) h.recordValueWithCount(v, scaleCounts);
  const counts = decodeHdr(new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64')));
  const merger = new HdrMerger('us');
  merger.add(counts, 'us');
  return {
    ...STEP,
    achievedRps: 1000,
    requests: valuesUs.length * scaleCounts,
    errors: 0,
    percentiles: merger.percentileValues([50, 90, 99, 99.9]),
    histogram: countedOf(merger.counts as NonNullable<typeof merger.counts>, 1000),
    format: 'hdr-log',
  };
}

function logNormalUs(seed: number, n: number, scale = 1): number[] {
  const rnd = prng(seed);
  return Array.from({ length: n }, () => Math.max(1, Math.round(rnd.logNormal(2000, 0.6) * scale)));
}

const rule = parseLoadRule('load.p99>+5%');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

function timeJudge(scaleCounts: number): { ms: number; verdict: string } {
  const base = hdrStep(logNormalUs(8, 20_000), scaleCounts);
  const worse = hdrStep(logNormalUs(9, 20_000, 1.1), scaleCounts);
  const times: number[] = [];
  let verdict = '';
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    verdict = judgeLoadStep({
      rule,
      step: STEP,
      current: worse,
      baseline: base,
      noiseFloorMs: null,
    }).verdict;
    times.push(performance.now() - started);
  }
  return { ms: median(times), verdict };
}

// A first pass warms the JIT for both, so neither side pays for compiling the other.
timeJudge(1);
timeJudge(50_000);
const small = timeJudge(1);
const large = timeJudge(50_000);
const ratio = large.ms / small.ms;
console.log('load-gate: judging a step on HdrHistograms (median of 7)');
console.log(`  20,000 requests per side (baseline): ${small.ms.toFixed(1)} ms, ${small.verdict}`);
console.log(`  10^9 requests per side:              ${large.ms.toFixed(1)} ms, ${large.verdict}`);
console.log(
  `  ratio ${ratio.toFixed(2)}x, budget <= 3x: ${budget('load gate at 10^9 requests', ratio <= 3)}`,
);
reportBudgets('load-gate');
