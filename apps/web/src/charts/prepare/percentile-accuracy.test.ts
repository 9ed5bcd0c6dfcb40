import { describe, expect, it } from 'vitest';
import { NO_VALUE } from './format.ts';
import {
  accuracyLegend,
  certaintyOf,
  describeAccuracy,
  EXACT_DESCRIPTION,
  formatMsBound,
  formatRelativeError,
  markDerived,
  markMsPercentile,
  markPercentile,
} from './percentile-accuracy.ts';

describe('certaintyOf', () => {
  it('is exact or an estimate only when the response says so', () => {
    expect(certaintyOf({ exact: true, method: 'raw' })).toBe('exact');
    expect(certaintyOf({ exact: false, method: 'ddsketch' })).toBe('estimate');
    // A producer that does not send the fields yet: never taken for exact.
    expect(certaintyOf({})).toBe('unknown');
    expect(certaintyOf({ method: 'raw' })).toBe('unknown');
    expect(certaintyOf(undefined)).toBe('unknown');
    expect(certaintyOf(null)).toBe('unknown');
  });
});

describe('formatMsBound', () => {
  it('rounds a lower bound down and an upper bound up at the table decimals', () => {
    // 11.96 shown to one decimal: rounding to nearest would claim 12.0, above the bound.
    expect(formatMsBound(11.96, 'lower')).toBe('11.9 ms');
    expect(formatMsBound(15.01, 'upper')).toBe('15.1 ms');
    expect(formatMsBound(0.0005, 'upper')).toBe('0.001 ms');
    expect(formatMsBound(0.0005, 'lower')).toBe('0.000 ms');
    // 25,000.2 ms is written in s to four digits (duration.ts): rounded up at 0.01 s.
    expect(formatMsBound(25_000.2, 'upper')).toBe('25.01 s');
  });
  it('leaves a bound that is already at the shown decimals as it is', () => {
    // 12.3 × 10 is 122.99999999999999 in binary; it is still 12.3.
    expect(formatMsBound(12.3, 'lower')).toBe('12.3 ms');
    expect(formatMsBound(12.3, 'upper')).toBe('12.3 ms');
    expect(formatMsBound(2.15, 'upper')).toBe('2.15 ms');
  });
});

describe('formatRelativeError', () => {
  it('writes a fraction as a percentage, rounded up to three digits', () => {
    expect(formatRelativeError(0.01)).toBe('1 %');
    expect(formatRelativeError(0.005)).toBe('0.5 %');
    expect(formatRelativeError(0.02714)).toBe('2.72 %');
    expect(formatRelativeError(0.0443)).toBe('4.43 %');
  });
});

describe('describeAccuracy', () => {
  it('says exact for nearest rank over the recorded values', () => {
    expect(describeAccuracy({ exact: true, method: 'raw' }, formatMsBound)).toBe(EXACT_DESCRIPTION);
    expect(EXACT_DESCRIPTION).toBe('exact (nearest rank over all recorded values)');
  });
  it('gives the bucket an explicit histogram estimate lies in', () => {
    expect(
      describeAccuracy(
        { exact: false, method: 'explicit-histogram', lower: 12, upper: 15 },
        formatMsBound,
      ),
    ).toBe('estimated by explicit-histogram: between 12.0 ms and 15.0 ms');
  });
  it('names an open side of a bucket', () => {
    expect(
      describeAccuracy({ exact: false, method: 'tool-histogram', lower: 250, upper: null }, (n) =>
        String(n),
      ),
    ).toBe('estimated by tool-histogram: at least 250, no upper bound');
    expect(
      describeAccuracy({ exact: false, method: 'explicit-histogram', lower: null, upper: 5 }, (n) =>
        String(n),
      ),
    ).toBe('estimated by explicit-histogram: at most 5, no lower bound');
    expect(
      describeAccuracy(
        { exact: false, method: 'explicit-histogram', lower: null, upper: null },
        formatMsBound,
      ),
    ).toBe('estimated by explicit-histogram: unbounded');
  });
  it('gives a relative error as a percentage', () => {
    expect(
      describeAccuracy({ exact: false, method: 'ddsketch', relativeError: 0.01 }, formatMsBound),
    ).toBe('estimated by ddsketch: within ±1 %');
  });
  it('gives both when both are known', () => {
    expect(
      describeAccuracy(
        {
          exact: false,
          method: 'exponential-histogram',
          lower: 1.0905,
          upper: 1.1892,
          relativeError: 0.0443,
        },
        formatMsBound,
      ),
    ).toBe('estimated by exponential-histogram: between 1.09 ms and 1.19 ms; within ±4.43 %');
  });
  it("says a raw sample's percentile is within the tool's resolution", () => {
    // JMeter's whole ms: 12 ms is 11 .. 13 ms.
    expect(
      describeAccuracy({ exact: false, method: 'raw', lower: 11, upper: 13 }, formatMsBound),
    ).toBe(
      "nearest rank over the tool's samples, each recorded to its resolution: between 11.0 ms and 13.0 ms",
    );
  });
  it('says when no bound is known', () => {
    expect(describeAccuracy({ exact: false, method: 'reported' }, formatMsBound)).toBe(
      'as the tool reported it (computed by the tool): no bound known',
    );
    expect(describeAccuracy({ exact: false, method: 'summary' }, formatMsBound)).toBe(
      'an OTLP Summary quantile as the client sent it: no bound known',
    );
    expect(describeAccuracy({ exact: false }, formatMsBound)).toBe('estimated: no bound known');
  });
  it('claims nothing when the response does not say', () => {
    expect(describeAccuracy({}, formatMsBound)).toBeNull();
    expect(describeAccuracy({ method: 'raw', lower: 1, upper: 2 }, formatMsBound)).toBeNull();
    expect(describeAccuracy(undefined, formatMsBound)).toBeNull();
  });
});

describe('markPercentile', () => {
  it('puts the mark before an estimate', () => {
    const m = markMsPercentile(13.46, {
      exact: false,
      method: 'explicit-histogram',
      lower: 12,
      upper: 15,
    });
    expect(m.text).toBe('~13.5 ms');
    expect(m.value).toBe('13.5 ms');
    expect(m.mark).toBe('~');
    expect(m.certainty).toBe('estimate');
    expect(m.description).toBe('estimated by explicit-histogram: between 12.0 ms and 15.0 ms');
  });
  it('shows an exact value as it is, saying it is exact', () => {
    const m = markMsPercentile(962.44, { exact: true, method: 'raw' });
    expect(m.text).toBe('962.4 ms');
    expect(m.mark).toBe('');
    expect(m.description).toBe(EXACT_DESCRIPTION);
  });
  it('shows a value of unknown accuracy with no mark and no claim', () => {
    const m = markMsPercentile(962.44, undefined);
    expect(m.text).toBe('962.4 ms');
    expect(m.mark).toBe('');
    expect(m.certainty).toBe('unknown');
    expect(m.description).toBeNull();
  });
  it('marks no missing value', () => {
    const m = markMsPercentile(null, { exact: false, method: 'ddsketch', relativeError: 0.01 });
    expect(m.text).toBe(NO_VALUE);
    expect(m.mark).toBe('');
    expect(m.description).toBeNull();
  });
  it('takes any unit', () => {
    const m = markPercentile(
      3,
      { exact: false, method: 'ddsketch', relativeError: 0.01 },
      (n) => `${n} B`,
      (n) => `${n} B`,
    );
    expect(m.text).toBe('~3 B');
  });
});

describe('markDerived', () => {
  it('marks a number computed from an estimate, and nothing else', () => {
    expect(markDerived('+50.0 ms', true)).toBe('~+50.0 ms');
    expect(markDerived('+50.0 ms', false)).toBe('+50.0 ms');
    expect(markDerived(NO_VALUE, true)).toBe(NO_VALUE);
  });
});

describe('accuracyLegend', () => {
  it('is there only when a table holds an estimate', () => {
    expect(accuracyLegend([])).toBeNull();
    expect(accuracyLegend(['exact', 'exact'])).toBeNull();
    expect(accuracyLegend(['unknown', 'exact'])).toBeNull();
  });
  it('calls unmarked values exact only when every one of them is', () => {
    expect(accuracyLegend(['exact', 'estimate'])).toBe(
      '~ marks an estimated percentile; hover it for its bound. Unmarked percentiles are exact (nearest rank over all recorded values).',
    );
    expect(accuracyLegend(['estimate', 'unknown'])).toBe(
      '~ marks an estimated percentile; hover it for its bound. Unmarked percentiles: exact where their tooltip says so, else as the source gave them.',
    );
  });
});
