// Remote-write series as records, each expectation worked out by hand from the series sent.
import { describe, expect, it } from 'vitest';
import { decodeDistribution } from '../../domain/distribution.ts';
import { labelSetsOf } from './remote-write-labels.ts';
import { mapRemoteWrite } from './remote-write-map.ts';
import type { WireHistogram, WireRequest, WireSeries } from './remote-write-reader.ts';

const T = Date.UTC(2026, 1, 1, 10, 0, 0);
const STALE = Buffer.from([2, 0, 0, 0, 0, 0, 0xf0, 0x7f]).readDoubleLE(0);

function series(labels: Record<string, string>, values: number[], over: Partial<WireSeries> = {}) {
  return {
    labels: Object.entries(labels).flat(),
    values,
    times: values.map(() => T),
    starts: values.map(() => 0),
    histograms: [],
    exemplars: [],
    type: 0,
    unit: '',
    createdMs: 0,
    ...over,
  } as WireSeries;
}
const request = (s: WireSeries[], metadata: [string, number][] = []): WireRequest => ({
  version: 1,
  series: s,
  metadata: new Map(metadata.map(([name, type]) => [name, { type, unit: '' }])),
});
const layout = (sketch: Uint8Array | null) => decodeDistribution(sketch as Uint8Array);

function native(over: Partial<WireHistogram>): WireHistogram {
  return {
    count: 0,
    countIsFloat: false,
    sum: 0,
    schema: 0,
    zeroThreshold: 0,
    zeroCount: 0,
    negativeSpans: [],
    negativeDeltas: [],
    negativeCounts: [],
    positiveSpans: [],
    positiveDeltas: [],
    positiveCounts: [],
    resetHint: 0,
    timestamp: T,
    customValues: [],
    startTimestamp: 0,
    inexact: false,
    ...over,
  };
}

describe('mapRemoteWrite', () => {
  it('makes a classic histogram family one record, whatever order its buckets come in', () => {
    const tags = { job: 'istiod' };
    const out = mapRemoteWrite(
      request([
        series({ __name__: 'lat_bucket', le: '1', ...tags }, [3]),
        series({ __name__: 'lat_count', ...tags }, [5]),
        series({ __name__: 'lat_bucket', le: '0.5', ...tags }, [1]),
        series({ __name__: 'lat_sum', ...tags }, [2.5]),
        series({ __name__: 'lat_bucket', le: '+Inf', ...tags }, [5]),
      ]),
    );
    expect(out.records).toHaveLength(1);
    const r = out.records[0];
    expect(r).toMatchObject({ name: 'lat', kind: 'histogram', count: 5, sum: 2.5, tags });
    expect(r?.startAtMs).toBe(0); // cumulative, its start unknown
    // (-inf,0.5] 1, (0.5,1] 3-1 = 2, (1,+inf) 5-3 = 2.
    expect(layout(r?.sketch ?? null)).toEqual({
      form: 'explicit',
      bounds: [0.5, 1],
      counts: [1, 2, 2],
    });
    expect(out.held).toEqual([{ samples: 5, histograms: 0, exemplars: 0 }]);
  });

  it('gives back the parts of a histogram point whose +Inf bucket, sum and count are in another request', () => {
    const out = mapRemoteWrite(
      request([
        series({ __name__: 'lat_bucket', le: '0.5', job: 'a' }, [1]),
        series({ __name__: 'lat_bucket', le: '1', job: 'a' }, [3]),
      ]),
    );
    expect(out.records).toEqual([]);
    expect(out.parts).toHaveLength(1);
    expect(out.parts[0]).toMatchObject({
      family: 'lat',
      tags: { job: 'a' },
      buckets: { '0.5': 1, '1': 3 },
      inf: null,
      sum: null,
      count: null,
      held: { samples: 2, histograms: 0, exemplars: 0 },
    });
  });

  it('holds a point to the le values its family label set had before', () => {
    const whole = [
      series({ __name__: 'lat_bucket', le: '1' }, [3]),
      series({ __name__: 'lat_bucket', le: '+Inf' }, [4]),
      series({ __name__: 'lat_sum' }, [2]),
      series({ __name__: 'lat_count' }, [4]),
    ];
    const known = (les: number[]) => ({ lesOf: () => les, histogramFamilies: new Set<string>() });
    // Its earlier points had le="0.5" too: the bucket is in another request.
    const split = mapRemoteWrite(request(whole), known([0.5, 1]));
    expect(split.records).toEqual([]);
    expect(split.parts[0]).toMatchObject({ buckets: { '1': 3 }, inf: 4, sum: 2, count: 4 });
    const one = mapRemoteWrite(request(whole), known([1]));
    expect(one.parts).toEqual([]);
    expect(one.records[0]).toMatchObject({ name: 'lat', kind: 'histogram', count: 4, sum: 2 });
    // Not known at all: given back, to be held to what is kept of the family.
    const unknown = mapRemoteWrite(request(whole), {
      lesOf: () => undefined,
      histogramFamilies: new Set(),
    });
    expect(unknown.parts).toHaveLength(1);
  });

  it('refuses a family whose buckets are not cumulative', () => {
    const out = mapRemoteWrite(
      request([
        series({ __name__: 'lat_bucket', le: '0.5' }, [4]),
        series({ __name__: 'lat_bucket', le: '1' }, [3]),
        series({ __name__: 'lat_bucket', le: '+Inf' }, [5]),
        series({ __name__: 'lat_sum' }, [2]),
        series({ __name__: 'lat_count' }, [5]),
      ]),
    );
    expect(out.records).toEqual([]);
    expect([...out.refused.values()]).toEqual([{ samples: 5, histograms: 0, exemplars: 0 }]);
  });

  it('makes a summary family one record with its quantiles in order', () => {
    const out = mapRemoteWrite(
      request([
        series({ __name__: 'rpc', quantile: '0.99' }, [9]),
        series({ __name__: 'rpc', quantile: '0.5' }, [2]),
        series({ __name__: 'rpc_sum' }, [40]),
        series({ __name__: 'rpc_count' }, [10]),
      ]),
    );
    expect(out.records).toHaveLength(1);
    expect(out.records[0]).toMatchObject({
      name: 'rpc',
      kind: 'summary',
      count: 10,
      sum: 40,
      quantiles: [
        { q: 0.5, value: 2 },
        { q: 0.99, value: 9 },
      ],
    });
  });

  it('types by metadata, else by name: _total a counter, anything else a gauge', () => {
    const out = mapRemoteWrite(
      request(
        [
          series({ __name__: 'pilot_xds_pushes' }, [7]),
          series({ __name__: 'x_total' }, [1]),
          series({ __name__: 'pilot_proxies' }, [3]),
          series({ __name__: 'hist_count' }, [2]),
          series({ __name__: 'hist_sum' }, [3]),
        ],
        [
          ['pilot_xds_pushes', 1],
          ['hist', 3],
        ],
      ),
    );
    expect(out.records.map((r) => [r.name, r.kind])).toEqual([
      ['pilot_xds_pushes', 'counter'],
      ['x_total', 'counter'],
      ['pilot_proxies', 'gauge'],
    ]);
    // Typed histogram, but without its buckets in this request (a family split across
    // requests): the sum and count are parts of its point, to be merged with the buckets.
    expect(out.parts).toMatchObject([{ family: 'hist', sum: 3, count: 2, buckets: {} }]);
  });

  it('acknowledges stale markers, NaN and infinities without storing them', () => {
    const out = mapRemoteWrite(
      request([series({ __name__: 'a' }, [STALE, Number.NaN, Number.POSITIVE_INFINITY, 1])]),
    );
    expect(out.records.map((r) => r.last)).toEqual([1]);
    expect(out.notStored).toBe(3);
    expect(out.refused.size).toBe(0);
    expect(out.total.samples).toBe(4);
  });

  it('reads the run and environment from labels, drops empty values, refuses repeated names', () => {
    const out = mapRemoteWrite(
      request([
        series({ __name__: 'up', meshbench_run: 'r1', env: 'ci', zone: '' }, [1]),
        series({ __name__: 'up' }, [1], { labels: ['__name__', 'up', 'a', '1', 'a', '2'] }),
      ]),
    );
    expect(out.records[0]).toMatchObject({ runRef: 'r1', env: 'ci', tags: { env: 'ci' } });
    expect([...out.refused.keys()]).toEqual(['label "a" appears twice']);
  });

  it("lays a native histogram out as OpenTelemetry's exponential form, one index lower", () => {
    // Schema 1; positive spans at Prometheus index -1 (2 buckets), gap 1, then index 2:
    // counts 1, 2, 0, 3; negative index 0: 4; zero bucket 1. Count 11.
    const h = native({
      count: 11,
      sum: 3,
      schema: 1,
      zeroThreshold: 0.001,
      zeroCount: 1,
      positiveSpans: [
        { offset: -1, length: 2 },
        { offset: 1, length: 1 },
      ],
      positiveDeltas: [1, 1, 1],
      negativeSpans: [{ offset: 0, length: 1 }],
      negativeDeltas: [4],
      startTimestamp: T - 5000,
    });
    const out = mapRemoteWrite(request([series({ __name__: 'h' }, [], { histograms: [h] })]));
    expect(out.records[0]).toMatchObject({
      kind: 'exponential_histogram',
      count: 11,
      sum: 3,
      startAtMs: T - 5000,
    });
    expect(layout(out.records[0]?.sketch ?? null)).toEqual({
      form: 'exponential',
      scale: 1,
      zeroCount: 1,
      zeroThreshold: 0.001,
      positive: { offset: -2, bucketCounts: [1, 2, 0, 3] },
      negative: { offset: -1, bucketCounts: [4] },
    });
  });

  it('keeps custom buckets as explicit bounds and refuses a count that is not the buckets', () => {
    const custom = native({
      count: 6,
      schema: -53,
      customValues: [1, 2],
      positiveSpans: [
        { offset: 0, length: 1 },
        { offset: 1, length: 1 },
      ],
      positiveDeltas: [2, 2],
    });
    const bad = native({
      count: 99,
      positiveSpans: [{ offset: 0, length: 1 }],
      positiveDeltas: [1],
    });
    const out = mapRemoteWrite(
      request([
        series({ __name__: 'c' }, [], { histograms: [custom] }),
        series({ __name__: 'b' }, [], { histograms: [bad] }),
      ]),
    );
    expect(out.records.map((r) => r.kind)).toEqual(['histogram']);
    // (-inf,1] 2, (1,2] 0, (2,+inf) 4: count 6.
    expect(layout(out.records[0]?.sketch ?? null)).toEqual({
      form: 'explicit',
      bounds: [1, 2],
      counts: [2, 0, 4],
    });
    expect([...out.refused.keys()]).toEqual([
      'a histogram of "b" is invalid: 1 observations are in buckets, but the count is 99',
    ]);
  });

  it('refuses native buckets past the ones a double maps to, before laying out their gaps', () => {
    // Schema 0: Prometheus indexes -1022 to 1024 (OpenTelemetry's -1023 to 1023, one lower).
    const at = (first: number, gap: number, schema = 0) =>
      native({
        count: 2,
        schema,
        positiveSpans: [
          { offset: first, length: 1 },
          { offset: gap, length: 1 },
        ],
        positiveDeltas: [1, 0],
      });
    const out = mapRemoteWrite(
      request([
        series({ __name__: 'top' }, [], { histograms: [at(1022, 0)] }),
        series({ __name__: 'past' }, [], { histograms: [at(1022, 2)] }),
        series({ __name__: 'below' }, [], { histograms: [at(-1023, 0)] }),
        // A gap of 2^31 - 1 zeros: refused without an array that long.
        series({ __name__: 'gap' }, [], { histograms: [at(0, 2 ** 31 - 1)] }),
        series({ __name__: 'custom' }, [], {
          histograms: [
            native({
              count: 2,
              schema: -53,
              customValues: [1, 2],
              positiveSpans: [
                { offset: 0, length: 1 },
                { offset: 2 ** 31 - 1, length: 1 },
              ],
              positiveDeltas: [1, 0],
            }),
          ],
        }),
      ]),
    );
    expect(out.records.map((r) => r.name)).toEqual(['top']);
    expect([...out.refused.keys()]).toEqual([
      'a histogram of "past" is invalid: positive side spans reach buckets 1022 to 1025, past the ones a double maps to (-1022 to 1024)',
      'a histogram of "below" is invalid: positive side spans reach buckets -1023 to -1022, past the ones a double maps to (-1022 to 1024)',
      'a histogram of "gap" is invalid: positive side spans reach buckets 0 to 2147483648, past the ones a double maps to (-1022 to 1024)',
      'a histogram of "custom" is invalid: positive side spans reach buckets 0 to 2147483648, past the ones a double maps to (0 to 2)',
    ]);
  });
});

describe('labelSetsOf', () => {
  const names = (set: { families: { name: string }[] }) => set.families.map((f) => f.name);
  it('gives one LabelSet per label set array, whoever asks', () => {
    const a = series({ __name__: 'up', job: 'a' }, [1]);
    const [x, y] = labelSetsOf(request([a, { ...a }]));
    expect(x).toBe(y);
    expect(labelSetsOf(request([a]))[0]).toBe(x);
  });

  it("gives a series' families: its name and its name less each suffix it ends with", () => {
    const [g, t, plain] = labelSetsOf(
      request([
        series({ __name__: 'x_gcount' }, [1]),
        series({ __name__: 'y_total' }, [1]),
        series({ __name__: 'z' }, [1]),
      ]),
    );
    expect(names(g as never)).toEqual(['x_gcount', 'x']);
    expect(names(t as never)).toEqual(['y_total', 'y']);
    expect(names(plain as never)).toEqual(['z']);
  });

  it('hints a bucket by its le label even when empty, which the mapping does not take as one', () => {
    const [empty, bucket, count] = labelSetsOf(
      request([
        series({ __name__: 'h_bucket', le: '' }, [1]),
        series({ __name__: 'h_bucket', le: '1' }, [1]),
        series({ __name__: 'h_count' }, [1]),
      ]),
    );
    expect(empty?.bucketOf?.name).toBe('h');
    expect(
      ((empty as { meaning: unknown }).meaning as { bucketOf: string | null }).bucketOf,
    ).toBeNull();
    expect(bucket?.bucketOf?.name).toBe('h');
    expect(bucket?.bucketOf).toBe(empty?.bucketOf);
    expect(count?.bucketOf).toBeNull();
    expect(count?.sumOf?.name).toBe('h');
  });
});

// Native histograms checked as upstream's Histogram.Validate and checkHistogramSpans/
// Buckets/CustomBounds do (prometheus/prometheus model/histogram/histogram.go and generic.go
// at d15adb9a), with the layouts of write/v2/types.proto; expected values worked by hand.
describe('native histograms, rule by rule', () => {
  const mapOne = (h: WireHistogram) =>
    mapRemoteWrite(request([series({ __name__: 'x' }, [], { histograms: [h] })]));
  const why = (over: Partial<WireHistogram>) => {
    const out = mapOne(native(over));
    const reasons = [...out.refused.keys()];
    return reasons.length === 0 ? null : reasons[0]?.replace('a histogram of "x" is invalid: ', '');
  };
  const sketch = (over: Partial<WireHistogram>) =>
    layout(mapOne(native(over)).records[0]?.sketch ?? null);
  const span = (offset: number, length: number) => ({ offset, length });

  it('reads a side as deltas or as absolute counts, never both, and never below zero', () => {
    expect(
      why({ count: 1, positiveSpans: [span(0, 1)], positiveDeltas: [1], positiveCounts: [1] }),
    ).toBe('positive side has both deltas and counts');
    expect(why({ count: 1, positiveSpans: [span(0, 1)], positiveCounts: [1] })).toBe(
      'positive side has float counts in an integer histogram',
    );
    expect(
      why({
        count: 1,
        countIsFloat: true,
        negativeSpans: [span(0, 2)],
        negativeCounts: [2, -1],
      }),
    ).toBe('negative side has a negative count');
    // Deltas 2, -3: the second bucket holds -1.
    expect(why({ count: 1, positiveSpans: [span(0, 2)], positiveDeltas: [2, -3] })).toBe(
      'positive side bucket 1 has a negative count',
    );
    expect(
      sketch({
        count: 4,
        countIsFloat: true,
        positiveSpans: [span(0, 2)],
        positiveCounts: [1.5, 2.5],
      }),
    ).toMatchObject({ positive: { offset: -1, bucketCounts: [1.5, 2.5] } });
    // Deltas 3, -3, 2: counts 3, 0, 2.
    expect(
      sketch({ count: 5, positiveSpans: [span(4, 3)], positiveDeltas: [3, -3, 2] }),
    ).toMatchObject({ positive: { offset: 3, bucketCounts: [3, 0, 2] } });
  });

  it('needs spans that cover the buckets, later ones at no negative offset', () => {
    expect(why({ count: 1, positiveSpans: [span(0, 2)], positiveDeltas: [1] })).toBe(
      'positive side spans cover 2 buckets, but 1 are sent',
    );
    expect(
      why({ count: 2, negativeSpans: [span(0, 1), span(-1, 1)], negativeDeltas: [1, 0] }),
    ).toBe('negative side span 1 has a negative offset');
    // The first span's offset is the first index, negative or not; a zero-length span and a
    // gap of zero add nothing.
    expect(
      sketch({
        count: 3,
        positiveSpans: [span(-3, 1), span(0, 0), span(0, 1), span(2, 1)],
        positiveDeltas: [1, 0, 0],
      }),
    ).toMatchObject({ positive: { offset: -4, bucketCounts: [1, 1, 0, 0, 1] } });
    // No buckets: empty sides (their offset says nothing).
    expect(sketch({ count: 0 })).toMatchObject({
      positive: { bucketCounts: [] },
      negative: { bucketCounts: [] },
    });
  });

  it('takes schemas -4 to 8 and -53, nothing else', () => {
    expect(why({ schema: -4 })).toBeNull();
    expect(why({ schema: 8 })).toBeNull();
    expect(why({ schema: -5 })).toBe('schema -5 is neither -53 (custom buckets) nor in [-4, 8]');
    expect(why({ schema: 9 })).toBe('schema 9 is neither -53 (custom buckets) nor in [-4, 8]');
    expect(sketch({ schema: -4 })).toMatchObject({ form: 'exponential', scale: -4 });
  });

  it('checks an exponential zero bucket and refuses custom bounds there', () => {
    expect(why({ customValues: [1] })).toBe('an exponential histogram has custom_values');
    for (const zeroThreshold of [-1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(why({ zeroThreshold })).toBe('zero_threshold is not a finite number >= 0');
    expect(why({ countIsFloat: true, zeroCount: -1 })).toBe('zero_count is negative');
    // The zero bucket counts toward the count.
    expect(why({ count: 2, zeroCount: 2, zeroThreshold: 1e-9 })).toBeNull();
    expect(why({ count: 1, zeroCount: 2 })).toBe(
      '2 observations are in buckets, but the count is 1',
    );
  });

  it('checks custom bounds as checkHistogramCustomBounds does, and the +Inf bucket', () => {
    const custom = (over: Partial<WireHistogram>) => why({ schema: -53, ...over });
    expect(custom({ customValues: [Number.NaN] })).toBe('custom_values[0] is not a finite number');
    expect(custom({ customValues: [1, Number.POSITIVE_INFINITY] })).toBe(
      'custom_values[1] is not a finite number',
    );
    expect(custom({ customValues: [Number.NEGATIVE_INFINITY, 1] })).toBe(
      'custom_values[0] is not a finite number',
    );
    expect(custom({ customValues: [1, 1] })).toBe(
      'custom_values must be strictly increasing (custom_values[1] = 1)',
    );
    expect(custom({ customValues: [2, 1] })).toBe(
      'custom_values must be strictly increasing (custom_values[1] = 1)',
    );
    expect(custom({ customValues: [1], zeroCount: 1, count: 1 })).toBe(
      'a custom-buckets histogram has a zero bucket',
    );
    expect(custom({ customValues: [1], zeroThreshold: 0.5 })).toBe(
      'a custom-buckets histogram has a zero bucket',
    );
    expect(custom({ customValues: [1], negativeSpans: [span(0, 0)] })).toBe(
      'a custom-buckets histogram has negative buckets',
    );
    expect(custom({ customValues: [1], negativeCounts: [1], countIsFloat: true })).toBe(
      'a custom-buckets histogram has negative buckets',
    );
    expect(custom({ customValues: [1], positiveSpans: [span(-1, 1)], positiveDeltas: [1] })).toBe(
      'positive side spans reach buckets -1 to -1, past the ones a double maps to (0 to 1)',
    );
    // Bounds 1, 2: buckets (-inf,1], (1,2], (2,+inf); index 2 is the last.
    expect(
      sketch({
        schema: -53,
        count: 3,
        customValues: [1, 2],
        positiveSpans: [span(2, 1)],
        positiveDeltas: [3],
      }),
    ).toEqual({ form: 'explicit', bounds: [1, 2], counts: [0, 0, 3] });
    expect(
      custom({ count: 3, customValues: [1, 2], positiveSpans: [span(3, 1)], positiveDeltas: [3] }),
    ).toBe('positive side spans reach buckets 3 to 3, past the ones a double maps to (0 to 2)');
  });

  it('holds the count to the buckets: at least them when the sum is NaN, near them for floats', () => {
    const three = { positiveSpans: [span(0, 1)], positiveDeltas: [3] };
    expect(why({ ...three, count: 5, sum: Number.NaN })).toBeNull();
    expect(why({ ...three, count: 3, sum: Number.NaN })).toBeNull();
    expect(why({ ...three, count: 2, sum: Number.NaN })).toBe(
      '3 observations are in buckets, but the count is 2',
    );
    expect(why({ ...three, count: 4 })).toBe('3 observations are in buckets, but the count is 4');
    expect(why({ ...three, count: 2 })).toBe('3 observations are in buckets, but the count is 2');
    const floats = { countIsFloat: true, positiveSpans: [span(0, 1)], positiveCounts: [3] };
    // Float counts: a relative error of 1e-9 of the count is the same count.
    expect(why({ ...floats, count: 3 + 1e-12 })).toBeNull();
    expect(why({ ...floats, count: 3 - 1e-12, sum: Number.NaN })).toBeNull();
    expect(why({ ...floats, count: 3.001 })).toBe(
      '3 observations are in buckets, but the count is 3.001',
    );
    expect(why({ ...floats, count: 2.999, sum: Number.NaN })).toBe(
      '3 observations are in buckets, but the count is 2.999',
    );
    expect(why({ countIsFloat: true, count: -1 })).toBe('the count is negative');
    expect(why({ countIsFloat: true, count: 1e-10 })).toBeNull();
  });
});
