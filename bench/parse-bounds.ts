// bench/parse-bounds: result files that once cost quadratic time or unbounded work (a regex
// that backtracked over long digit runs, 30 MB of YAML-looking text parsed whole, a YAML parse
// that held the event loop), each timed beside a linear pass over the same text in the same
// run (a scan for a byte that is not there: the least any reader of that text must do). The
// budgets are the times within which each was answered when it was fixed; the unit tests
// (apps/api/src/ingest/results/bounds.test.ts, yaml-bounded.test.ts) check the answers.
// Run: npx tsx parse-bounds.ts
import { readFileSync } from 'node:fs';
import { decodeResults, decodeWrk2, parseYaml, toNumber } from '@meshbench/api/parse-bounds';
import { budget, reportBudgets } from './lib/budget.ts';

const REPEATS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function timed(fn: () => unknown): Promise<number> {
  const started = performance.now();
  try {
    await fn();
  } catch {
    // Refusals are the expected answer for most cases here.
  }
  return performance.now() - started;
}

/** The linear pass a reader of `text` cannot avoid: one scan for a byte that is absent. */
const scan = (text: string) => () => text.indexOf('\u0000');

/** The longest the event loop went without running a 5 ms timer while `work` ran. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  try {
    await work().catch(() => {});
  } finally {
    clearInterval(timer);
  }
  return Math.max(worst, performance.now() - last);
}

const digits = '1'.repeat(1_000_000);
const wrk2Report = `${readFileSync(
  new URL('../apps/api/src/ingest/results/fixtures/wrk2-readme-latency.txt', import.meta.url),
  'utf8',
)}\n${digits} ${digits}x 1 x\n`;
const cases: Array<{ name: string; text: string; run: () => unknown; budgetMs: number }> = [
  {
    name: 'a number of 1,000,000 digits',
    text: `${digits}x`,
    run: () => toNumber(`${digits}x`, { field: 'f' }),
    budgetMs: 500,
  },
  {
    name: 'a wrk2 report with 2 MB digit runs',
    text: wrk2Report,
    run: () => decodeWrk2(wrk2Report),
    budgetMs: 1000,
  },
  (() => {
    const text = 'key: value\n'.repeat(3_000_000);
    return {
      name: '33 MB of YAML-looking text (refused)',
      text,
      run: () => decodeResults(text),
      budgetMs: 2000,
    };
  })(),
  (() => {
    const text = `latencies_ms:\n${'  p50: 1\n'.repeat(300_000)}`;
    return {
      name: 'a 2.7 MB YAML result (refused)',
      text,
      run: () => decodeResults(text),
      budgetMs: 1000,
    };
  })(),
];

console.log('parse-bounds: pathological result files, each beside one scan of the same text');
for (const c of cases) {
  const ms: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    base.push(await timed(scan(c.text)));
    ms.push(await timed(c.run));
  }
  const m = median(ms);
  const b = Math.max(median(base), 0.01);
  console.log(
    `  ${c.name.padEnd(40)} ${m.toFixed(1).padStart(7)} ms  baseline ${b.toFixed(2)} ms  ratio ${(m / b).toFixed(m / b < 10 ? 2 : 0)}x  budget <= ${c.budgetMs} ms: ${budget(`${c.name} <= ${c.budgetMs} ms`, m <= c.budgetMs)}`,
  );
}

// A YAML parse that overruns its time runs in a worker: the event loop keeps its timers.
const keys = Array.from({ length: 20_000 }, (_, i) => `key${i}: v`).join('\n');
const stalls: number[] = [];
for (let i = 0; i < 3; i++)
  stalls.push(await longestStall(() => parseYaml(keys, { timeoutMs: 300 })));
const stall = median(stalls);
console.log(
  `  ${'longest event-loop stall, 300 ms YAML parse'.padEnd(40)} ${stall.toFixed(1).padStart(7)} ms  (of a 300 ms parse)  budget <= 200 ms: ${budget('event-loop stall during a YAML parse <= 200 ms', stall <= 200)}`,
);
reportBudgets('parse-bounds');
