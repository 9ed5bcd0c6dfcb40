import { evaluate, type Metrics, parseRule } from '@meshbench/gates';
import { describe, expect, it } from 'vitest';
import { markdownSummary } from './markdown.ts';

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
    expect(md).toContain('- `p99>+10%`: 1000 > 880');
    expect(md).toContain('[Open the comparison](http://x/compare?runs=a,b)');
  });
});
