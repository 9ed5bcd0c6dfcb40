import { describe, expect, it } from 'vitest';
import {
  causeColor,
  DEFAULT_TAIL_THRESHOLD,
  formatOffset,
  incidentWindow,
  prepareTailCauses,
  TAIL_THRESHOLDS,
  tailClockNote,
  tailCutNote,
  tailSummary,
  tailThresholdFromSearch,
  tailThresholdToSearch,
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
  });
});

describe('the tail cut in the URL', () => {
  it('opens on Auto, which asks the API for neither cut', () => {
    expect(DEFAULT_TAIL_THRESHOLD.id).toBe('auto');
    expect(DEFAULT_TAIL_THRESHOLD.thresholdMs).toBeUndefined();
    expect(DEFAULT_TAIL_THRESHOLD.thresholdP).toBeUndefined();
    expect(tailThresholdFromSearch(new URLSearchParams(''))).toBe(DEFAULT_TAIL_THRESHOLD);
    expect(tailThresholdFromSearch(new URLSearchParams('tail=p42'))).toBe(DEFAULT_TAIL_THRESHOLD);
  });

  it('reads and writes ?tail=, leaving Auto out and other parameters alone', () => {
    const oneSecond = tailThresholdFromSearch(new URLSearchParams('tail=1s'));
    expect(oneSecond).toMatchObject({ thresholdMs: 1000 });
    expect(tailThresholdFromSearch(new URLSearchParams('tail=p99'))).toMatchObject({
      thresholdP: 99,
    });
    const search = new URLSearchParams('percentiles=50,99');
    const p95 = TAIL_THRESHOLDS.find((t) => t.id === 'p95');
    if (!p95) throw new Error('no p95');
    const withP95 = tailThresholdToSearch(search, p95);
    expect(withP95.toString()).toBe('percentiles=50%2C99&tail=p95');
    expect(tailThresholdToSearch(withP95, DEFAULT_TAIL_THRESHOLD).toString()).toBe(
      'percentiles=50%2C99',
    );
  });
});

describe('tailCutNote', () => {
  const base = { thresholdP: null, medianMs: 420, applied: 20_000, tailCount: 760 };
  it('says why the tail is P95 when 1 s would hold most proxies', () => {
    const note = tailCutNote({
      ...base,
      cutRule: 'fallback',
      thresholdMs: 1814.2,
      thresholdP: 95,
      medianMs: 1020,
      tailCount: 999,
    });
    expect(note.warning).toBe(false);
    expect(note.text).toBe(
      'The tail is the proxies slower than P95 (1.81 s), not slower than 1 s: the median (1.02 s) is slower than 1 s, so 1 s would put more than half of the 20,000 proxies that applied the change in the "tail". Pick "> 1 s" to see it anyway.',
    );
  });

  it('warns when a threshold asked for holds more than half the proxies', () => {
    // 10,156 / 19,980 = 50.83 %.
    const note = tailCutNote({
      ...base,
      cutRule: 'thresholdMs',
      thresholdMs: 1000,
      medianMs: 1020,
      applied: 19_980,
      tailCount: 10_156,
    });
    expect(note.warning).toBe(true);
    expect(note.text).toMatch(/^This tail holds 50\.8 % of the 19,980 proxies/);
    expect(note.text).toContain('"unexplained" mostly counts proxies that were merely typical');
    // Exactly half is not "more than half".
    expect(
      tailCutNote({ ...base, cutRule: 'thresholdMs', thresholdMs: 1000, tailCount: 10_000 })
        .warning,
    ).toBe(false);
  });

  it('names the default and a percentile picked', () => {
    expect(tailCutNote({ ...base, cutRule: 'default', thresholdMs: 1000 }).text).toBe(
      'The tail is the proxies slower than 1 s (Auto: P95 instead when the median is slower than 1 s; it is 420 ms).',
    );
    expect(
      tailCutNote({ ...base, cutRule: 'thresholdP', thresholdMs: 251_000, thresholdP: 99 }).text,
    ).toBe('The tail is the proxies slower than P99 (251 s), as picked; the median is 420 ms.');
  });
});

describe('tailClockNote', () => {
  it('says which latencies the tail counts', () => {
    expect(tailClockNote({ clock: 'corrected', clockErrorMs: 1 })).toBe(
      'latencies corrected for node clocks (±1 ms)',
    );
    expect(tailClockNote({ clock: 'raw', clockErrorMs: null })).toBe(
      'raw latencies, as the nodes stamped them',
    );
    expect(tailClockNote({})).toBe('');
  });
});
