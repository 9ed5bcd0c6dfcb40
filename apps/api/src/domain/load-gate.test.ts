import { parseLoadRule } from '@meshbench/gates';
import { describe, expect, it } from 'vitest';
import { prng } from '../demo/prng.ts';
import { hdrStep, logNormalUs, STEP } from './load-gate.test-fixtures.ts';
import { evaluateLoadRule, judgeLoadStep, type LoadStepSide } from './load-gate.ts';
import { countsBootstrap, percentileBootstrap } from './quantile-bootstrap.ts';

// Under Stryker (scripts/stryker-setup.ts sets MESHBENCH_MUTATION_RUN) the seeded simulations
// run smaller, as quantile-bootstrap.test.ts's do: every mutant of judgeLoadStep runs them, and
// the A/A test's 100 pairs of 20,000 took 8.5 s a mutant. The bound scales with the pairs (at
// most 5 % loud), so the smaller run asks the same of the code with less power.
const MUTATION_RUN = process.env.MESHBENCH_MUTATION_RUN === '1';

const judge = (rule: string, current: LoadStepSide | null, baseline: LoadStepSide | null) =>
  judgeLoadStep({ rule: parseLoadRule(rule), step: STEP, current, baseline, noiseFloorMs: null });

describe('countsBootstrap', () => {
  it('agrees with 20,000 random resamples of the sample written out', () => {
    const rnd = prng(7);
    const values = [1, 2, 3, 5, 8, 13, 21, 34];
    const counts = values.map(() => 1 + Math.floor(rnd.next() * 40));
    const written = values.flatMap((v, i) => Array(counts[i]).fill(v) as number[]);
    const n = written.length;
    for (const p of [50, 90, 99]) {
      const k = Math.max(1, Math.ceil((p / 100) * n));
      const seen = new Map<number, number>();
      const draw = new Float64Array(n);
      for (let r = 0; r < 20_000; r++) {
        for (let i = 0; i < n; i++) draw[i] = written[Math.floor(rnd.next() * n)] as number;
        draw.sort();
        const q = draw[k - 1] as number;
        seen.set(q, (seen.get(q) ?? 0) + 1 / 20_000);
      }
      const exact = countsBootstrap(values, counts, p);
      expect(exact.reduce((s, x) => s + x.p, 0)).toBeCloseTo(1, 9);
      for (const x of exact) expect(Math.abs(x.p - (seen.get(x.value) ?? 0))).toBeLessThan(0.015);
      // The written-out sample through the raw-observation path gives the same atoms.
      expect(percentileBootstrap(written, p).map((x) => x.value)).toEqual(
        exact.map((x) => x.value),
      );
    }
  });
});

describe('judgeLoadStep on HdrHistograms', () => {
  it('finds no significant change between histograms of one distribution in >= 95 of 100 seeds (24 of 25 under Stryker)', () => {
    // The interval alone excludes 0 in about 5 % of pairs (13 of 200 measured), as a 95 %
    // interval should; the rule's +10 % keeps most of those quiet.
    const pairs = MUTATION_RUN ? 25 : 100;
    let quiet = 0;
    for (let seed = 1; seed <= pairs; seed++) {
      const v = judge(
        'load.p99>+10%',
        hdrStep(logNormalUs(seed, 20_000)),
        hdrStep(logNormalUs(seed + 1000, 20_000)),
      );
      expect(v.tested).toBe(true);
      if (v.verdict === 'no-significant-change') quiet++;
    }
    expect(quiet).toBeGreaterThanOrEqual(Math.ceil(pairs * 0.95));
  });

  it('calls a P99 10 % higher regressed, and the reverse improved (5 seeds, 2 under Stryker)', () => {
    for (let seed = 1; seed <= (MUTATION_RUN ? 2 : 5); seed++) {
      const base = logNormalUs(seed + 2000, 100_000);
      const worse = logNormalUs(seed + 3000, 100_000).map((v) => Math.round(v * 1.1));
      const v = judge('load.p99>+5%', hdrStep(worse), hdrStep(base));
      expect(v).toMatchObject({ verdict: 'regressed', failed: true, tested: true });
      expect(v.significance?.low).toBeGreaterThan(0);
      expect(judge('load.p99>+5%', hdrStep(base), hdrStep(worse))).toMatchObject({
        verdict: 'improved',
        failed: false,
      });
    }
  });

  it('gives the same answer for the same histograms, every time', () => {
    const a = hdrStep(logNormalUs(5, 20_000));
    const b = hdrStep(logNormalUs(6, 20_000).map((v) => Math.round(v * 1.05)));
    expect(judge('load.p99>+2%', a, b)).toEqual(judge('load.p99>+2%', a, b));
  });

  it('stays bounded for 10^9 requests: counts per bucket, not per request', () => {
    const base = hdrStep(logNormalUs(8, 20_000), 50_000);
    const worse = hdrStep(
      logNormalUs(9, 20_000).map((v) => Math.round(v * 1.1)),
      50_000,
    );
    expect(base.requests).toBe(1e9);
    // Its time beside the same histograms counting 20,000 requests: bench/load-gate.ts.
    const v = judge('load.p99>+5%', worse, base);
    expect(v.verdict).toBe('regressed');
  });

  it("holds a difference within the two percentiles' buckets as no significant change", () => {
    const side = (ms: number, lower: number, upper: number): LoadStepSide => ({
      ...STEP,
      achievedRps: 1000,
      requests: 1e6,
      errors: 0,
      percentiles: [{ p: 99, ms, exact: false, method: 'hdr', lower, upper }],
      histogram: { values: [ms / 2, ms], counts: [9.8e5, 2e4] },
      format: 'hdr-log',
    });
    const v = judge('load.p99>+5%', side(10, 8.5, 10.5), side(9, 8.4, 10.2));
    expect(v.verdict).toBe('no-significant-change');
    expect(v.reason).toMatch(/within the HdrHistogram buckets/);
    // Buckets apart: the same difference is a regression.
    expect(judge('load.p99>+5%', side(10, 9.6, 10.5), side(9, 8.4, 9.5)).verdict).toBe('regressed');
  });
});

describe('judgeLoadStep without histograms', () => {
  const summary = (p99: number, rps = 1000, errors = 0): LoadStepSide => ({
    ...STEP,
    achievedRps: rps,
    requests: 10_000,
    errors,
    percentiles: [{ p: 99, ms: p99, exact: false, method: 'tool-histogram' }],
    histogram: null,
    format: 'fortio',
  });
  it('holds the fixed rule alone and says so', () => {
    const v = judge('load.p99>+10%', summary(9), summary(8));
    expect(v).toMatchObject({ verdict: 'regressed', failed: true, tested: false, bound: 8.8 });
    expect(v.reason).toMatch(/not significance-tested: no HdrHistogram here \(fortio\)/);
    expect(judge('load.p99>+10%', summary(8.5), summary(8))).toMatchObject({
      verdict: 'no-significant-change',
      failed: false,
    });
    expect(judge('load.p99>+10%', summary(7), summary(8)).verdict).toBe('improved');
  });
  it('reads the achieved rate and the error rate', () => {
    expect(judge('load.rps<-5%', summary(8, 940), summary(8, 1000))).toMatchObject({
      verdict: 'regressed',
      current: 940,
      bound: 950,
    });
    expect(judge('load.errors>+1pp', summary(8, 1000, 200), summary(8, 1000, 50))).toMatchObject({
      verdict: 'regressed',
      current: 2,
      baselineValue: 0.5,
      bound: 1.5,
    });
  });
});

describe('evaluateLoadRule', () => {
  const side = (targetRps: number, p99: number): LoadStepSide => ({
    ...STEP,
    targetRps,
    achievedRps: targetRps,
    requests: 1000,
    errors: 0,
    percentiles: [{ p: 99, ms: p99, exact: false }],
    histogram: null,
    format: 'nighthawk',
  });
  it('lists every step, those one side lacks as not comparable, and takes the worst', () => {
    const v = evaluateLoadRule({
      rule: parseLoadRule('load.p99>+10%'),
      current: [side(100, 5), side(200, 7), side(300, 9)],
      baseline: [side(100, 5), side(200, 5), side(400, 9)],
      notComparable: () => undefined,
      noiseFloorMs: () => null,
    });
    expect(v.steps.map((s) => [s.targetRps, s.verdict])).toEqual([
      [100, 'no-significant-change'],
      [200, 'regressed'],
      [300, 'not-comparable'],
      [400, 'not-comparable'],
    ]);
    expect(v).toMatchObject({ verdict: 'regressed', failed: true });
    expect(v.reason).toMatch(/^regressed at 1 of 4 steps; at both, 64 connections, 200 RPS target/);
  });
  it('judges steps of two configurations at one rate apart, each against its own baseline', () => {
    // An Istio perf CSV at 1,000 RPS, 64 connections, both: telemetry v2 and none. Keyed
    // without the config, the second step was never judged (and matched the wrong baseline).
    const at = (config: string, p99: number) => ({ ...side(1000, p99), config });
    const v = evaluateLoadRule({
      rule: parseLoadRule('load.p99>+10%'),
      current: [at('v2-nullvm', 10), at('none', 8)],
      baseline: [at('v2-nullvm', 10), at('none', 5)],
      notComparable: () => undefined,
      noiseFloorMs: () => null,
    });
    expect(v.steps.map((s) => [s.config, s.verdict])).toEqual([
      ['v2-nullvm', 'no-significant-change'],
      ['none', 'regressed'],
    ]);
    expect(v.reason).toMatch(/at both, 64 connections, 1,000 RPS target, config none:/);
  });
  it('says why a step cannot be compared, and does not fail on it', () => {
    const v = evaluateLoadRule({
      rule: parseLoadRule('load.p99>+10%'),
      current: [side(100, 50)],
      baseline: [side(100, 5)],
      notComparable: () => 'achieved RPS below target by more than 5 % here',
      noiseFloorMs: () => null,
    });
    expect(v).toMatchObject({ verdict: 'not-comparable', failed: false });
    expect(v.steps[0]?.reason).toBe('achieved RPS below target by more than 5 % here');
  });
  it('fails when there is nothing to hold the rule to', () => {
    const none = {
      notComparable: () => undefined,
      noiseFloorMs: () => null,
    };
    expect(
      evaluateLoadRule({
        rule: parseLoadRule('load.p99>+10%'),
        current: [],
        baseline: [],
        ...none,
      }),
    ).toMatchObject({ failed: true, reason: 'no load steps in this run' });
    expect(
      evaluateLoadRule({
        rule: parseLoadRule('load.p99>+10%'),
        current: [side(100, 5)],
        baseline: null,
        ...none,
      }),
    ).toMatchObject({ failed: true, verdict: 'not-comparable' });
  });
});
