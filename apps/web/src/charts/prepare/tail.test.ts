import { describe, expect, it } from 'vitest';
import {
  causeColor,
  DEFAULT_TAIL_THRESHOLD,
  formatOffset,
  incidentWindow,
  prepareTailCauses,
  tailSummary,
} from './tail.ts';

const tail = {
  thresholdMs: 1000,
  thresholdP: null,
  tailCount: 759,
  neverConverged: 12,
  causes: [
    { cause: 'reconnect-backoff', count: 269, share: 269 / 771, percentiles: [] },
    { cause: 'unexplained', count: 40, share: 40 / 771, percentiles: [] },
    { cause: 'never-converged', count: 12, share: 12 / 771, percentiles: [] },
  ],
};

describe('prepareTailCauses', () => {
  it('gives one bar per cause in the API order, with count and share', () => {
    const c = prepareTailCauses(tail);
    expect(c?.bars.map((b) => [b.cause, b.kind, b.label])).toEqual([
      // 269 / 771 = 34.89 %; 40 / 771 = 5.19 %; 12 / 771 = 1.56 %.
      ['reconnect-backoff', 'cause', '269 · 34.9 %'],
      ['unexplained', 'unexplained', '40 · 5.2 %'],
      ['never-converged', 'never-converged', '12 · 1.6 %'],
    ]);
    // 269 -> 300; 300 / 4 = 75 -> 100.
    expect(c?.countDomain).toEqual([0, 300]);
    expect(c?.countTicks).toEqual([0, 100, 200, 300]);
    expect(c?.total).toBe(771);
  });

  it('has nothing to draw for an empty tail', () => {
    expect(prepareTailCauses({ causes: [], tailCount: 0, neverConverged: 0 })).toBeNull();
  });
});

describe('causeColor', () => {
  it('keeps a cause in one colour, never-converged and unexplained their own', () => {
    expect(causeColor('never-converged')).toBe('#b42318');
    expect(causeColor('unexplained')).toBe('#9ca3af');
    expect(causeColor('reconnect-backoff')).toBe('#466bb0');
    expect(causeColor('dns-timeout')).toBe(causeColor('dns-timeout'));
    expect(causeColor('dns-timeout')).toMatch(/^#[0-9a-f]{6}$/);
  });
});

describe('incident windows', () => {
  it('writes the window as offsets from the change', () => {
    expect(
      incidentWindow(
        { from: '2026-02-01T10:00:00.034564Z', to: '2026-02-01T10:02:08.985289Z' },
        '2026-02-01T10:00:00.000000Z',
      ),
    ).toBe('+34 ms – +129 s');
    expect(incidentWindow({ from: '2026-02-01T09:59:58Z', to: null }, '2026-02-01T10:00:00Z')).toBe(
      '−2 s – still open',
    );
    expect(incidentWindow({ from: 'yesterday', to: null }, '2026-02-01T10:00:00Z')).toBeNull();
    expect(formatOffset(0)).toBe('+0 ms');
  });
});

describe('tailSummary', () => {
  it('says what the tail is and how much of the change it holds', () => {
    // 771 / 20,000 = 3.855 % -> 3.9 %.
    expect(tailSummary(tail, 20_000)).toBe(
      '759 proxies slower than 1 s, 12 never converged — 3.9 % of 20,000 expected',
    );
    expect(
      tailSummary({ thresholdMs: 12_345.6, thresholdP: 99, tailCount: 1, neverConverged: 0 }, null),
    ).toBe('1 proxy slower than P99 (12.3 s)');
    expect(DEFAULT_TAIL_THRESHOLD.thresholdMs).toBe(1000);
  });
});
