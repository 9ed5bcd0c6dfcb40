// bench/load-gate: a load gate judged on HdrHistograms costs what their buckets cost, not what
// they count. The same two distributions (20,000 samples each, 3 significant digits) are
// judged once as recorded (20,000 requests) and once with every count scaled to 10^9
// requests; the budget is that the scaled judgement takes no more than 3x the unscaled one
// (a cost per request would be 50,000x). The verdicts are checked in
// apps/api/src/domain/load-gate.test.ts.
// Run: npx tsx load-gate.ts
import { hdrStep, judgeLoadStep, logNormalUs, parseLoadRule, STEP } from '@meshbench/api/load-gate';
import { budget, reportBudgets } from './lib/budget.ts';

const REPEATS = 7;

const rule = parseLoadRule('load.p99>+5%');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

function timeJudge(scaleCounts: number): { ms: number; verdict: string } {
  const base = hdrStep(logNormalUs(8, 20_000), scaleCounts);
  const worse = hdrStep(
    logNormalUs(9, 20_000).map((v) => Math.round(v * 1.1)),
    scaleCounts,
  );
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
