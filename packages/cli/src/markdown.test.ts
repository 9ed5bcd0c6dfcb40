import { evaluate, type Metrics, parseRule } from '@meshbench/gates';
import type { GateStep } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { fitMarkdown, markdownSummary } from './markdown.ts';

const m = (over: Partial<Metrics>): Metrics => ({
  p50: 100,
  p90: 300,
  p95: 500,
  p96: 560,
  p99: 800,
  'p99.9': 5000,
  mean: 200,
  max: 9000,
  within1s: 96.6,
  missing: 3,
  ...over,
});

describe('markdownSummary', () => {
  it('tabulates baseline, current, delta and verdicts, and lists failures', () => {
    const current = m({ p99: 1000, within1s: 94 });
    const baseline = m({});
    const verdicts = [
      evaluate(parseRule('p99>+10%'), current.p99, baseline.p99),
      evaluate(parseRule('within1s<95%'), current.within1s, baseline.within1s),
    ];
    const md = markdownSummary({
      title: 'consul · endpoint-propagation',
      baselineLabel: 'run abc',
      current,
      baseline,
      verdicts,
      compareUrl: 'http://x/compare?runs=a,b',
    });
    expect(md).toContain('❌ 2 of 2 rules failed');
    // p99: 800 -> 1000 ms is +200 ms, +25.0 %, worse.
    expect(md).toContain('| p99 | 800.0 ms | 1000.0 ms | +200 ms (+25.0 %) 🔺 | ❌ `p99>+10%` |');
    // within 1 s: 96.6 -> 94.0 % is -2.6 pp, worse.
    expect(md).toContain(
      '| within1s | 96.6 % | 94.0 % | -2.6 pp (-2.7 %) 🔺 | ❌ `within1s<95%` |',
    );
    expect(md).toContain('- `p99>+10%`: 1.000 s > 880.0 ms');
    expect(md).toContain('[Open the comparison](http://x/compare?runs=a,b)');
  });
});

describe('markdownSummary of runs that cannot be compared', () => {
  it('marks a rule that passed only as not comparable, says why, and lists the warnings', () => {
    const current = m({ p99: 1000 });
    const baseline = m({});
    const reason =
      'different mesh version, pinned by same:mesh.version: 1.18.0 here, 1.17.0 in the baseline';
    const verdict = {
      ...evaluate(parseRule('p99>+10% same:mesh.version'), current.p99, baseline.p99),
      failed: false,
      significance: {
        verdict: 'not-comparable' as const,
        reason,
        noiseFloorMs: null,
        metric: 'p99',
        baseline: 'run abc',
      },
    };
    const md = markdownSummary({
      title: 'consul · endpoint-propagation',
      baselineLabel: 'run abc',
      current,
      baseline,
      verdicts: [verdict],
      notComparable: [reason],
    });
    expect(md).toContain('✅ all 1 rules passed (⚠️ 1 not comparable) · baseline: run abc');
    expect(md).toContain(`**⚠️ Not comparable with the baseline:**\n\n- ${reason}\n`);
    expect(md).toContain(
      '| p99 | 800.0 ms | 1000.0 ms | +200 ms (+25.0 %) 🔺 | ⚠️ `p99>+10% same:mesh.version` |',
    );
    expect(md).toContain(
      `- \`p99>+10% same:mesh.version\`: ⚠️ not comparable: ${reason} (noise floor not measured)`,
    );
  });
});

describe('fitMarkdown', () => {
  it('leaves Markdown that fits as it is', () => {
    expect(fitMarkdown('a\nb\n', 100)).toBe('a\nb\n');
  });
  it('cuts at a line, says how many lines were left out and where the rest is', () => {
    const md = Array.from({ length: 1000 }, (_, i) => `| row ${i} | value |`).join('\n');
    const fitted = fitMarkdown(md, 2000, 'http://example.test/runs/1');
    expect(fitted.length).toBeLessThanOrEqual(2000);
    const lines = fitted.trimEnd().split('\n');
    const last = lines.at(-1) as string;
    const kept = lines.length - 2; // the note and the blank line before it
    expect(lines.slice(0, kept)).toEqual(md.split('\n').slice(0, kept));
    expect(last).toBe(
      `_… ${1000 - kept} more lines left out to fit 2,000 characters: http://example.test/runs/1_`,
    );
  });
});

describe('markdownSummary of data-plane rules', () => {
  const step = (
    targetRps: number,
    over: Pick<GateStep, 'verdict' | 'failed' | 'reason'>,
  ): GateStep => ({
    mode: 'both',
    connections: 64,
    targetRps,
    current: 9.2,
    baselineValue: 8,
    bound: 8.8,
    tested: true,
    ...over,
  });
  it('lists each load step with its verdict and why, and counts the rule once', () => {
    const md = markdownSummary({
      title: 'istio · load',
      baselineLabel: 'run abc',
      current: null,
      baseline: null,
      verdicts: [],
      loadVerdicts: [
        {
          rule: 'load.p99>+10%',
          baseline: 'run abc',
          baselineValue: 8,
          current: 9.2,
          bound: 8.8,
          failed: true,
          verdict: 'regressed',
          reason: 'regressed at 1 of 2 steps; at both, 64 connections, 1,000 RPS target: +1.2 ms',
          steps: [
            step(1000, { verdict: 'regressed', failed: true, reason: '+1.2 ms | beyond' }),
            step(2000, {
              verdict: 'not-comparable',
              failed: false,
              reason: 'achieved RPS below target by more than 5 % here',
            }),
          ],
        },
      ],
    });
    expect(md).toContain('❌ 1 of 1 rules failed');
    expect(md).not.toContain('| metric |');
    expect(md).toContain(
      '| `load.p99>+10%` | both, 64 conn, 1000 RPS | 8 | 9.2 | ❌ regressed: +1.2 ms \\| beyond |',
    );
    expect(md).toContain(
      '| `load.p99>+10%` | both, 64 conn, 2000 RPS | 8 | 9.2 | ⚠️ not comparable: achieved RPS below target by more than 5 % here |',
    );
    expect(md).toContain('- ❌ `load.p99>+10%`: regressed: regressed at 1 of 2 steps');
  });
});
