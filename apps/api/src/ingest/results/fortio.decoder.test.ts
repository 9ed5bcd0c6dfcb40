import { loadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { fortioToResult, decodeFortio as fromDocument } from './fortio.decoder.ts';
import { decodeResults } from './index.ts';
import { ResultFileError } from './result-file-error.ts';
import { FORTIO_NOTHING_SENT, publicFixture } from './test-fixtures.ts';
import { parseJson, Unmapped } from './values.ts';

/** The decoder on a JSON text, as decodeResults hands it the parsed file. */
const decodeFortio = (text: string) => fromDocument(parseJson(text));

const nighthawk = (f: string) => publicFixture(`envoyproxy-nighthawk/${f}`);

function only(text: string) {
  const { results, unmapped } = decodeFortio(text);
  expect(results).toHaveLength(1);
  const r = results[0]!;
  expect(loadResult.parse(r)).toEqual(r);
  return { r, unmapped };
}

function thrown(fn: () => unknown): ResultFileError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ResultFileError);
    return err as ResultFileError;
  }
  throw new Error('expected a ResultFileError');
}

describe('decodeFortio on real files', () => {
  it('reads a real Fortio 0.8.1 result (hist_fortio-data_golden.json)', () => {
    const { r, unmapped } = only(nighthawk('hist_fortio-data_golden.json'));
    expect(r.targetRps).toBe(400); // "RequestedQPS":"400"
    expect(r.achievedRps).toBe(399.44483242517316); // "ActualQPS"
    expect(r.durationMs).toBe(30041.695438); // "ActualDuration":30041695438 ns
    expect(r.connections).toBe(48); // "NumThreads":48
    expect(r.requests).toBe(12000); // DurationHistogram.Count
    expect(r.errors).toBe(0); // "RetCodes":{"200":12000}
    expect(r.errorsByCode).toEqual({});
    expect(r.startedAt).toBe('2018-04-06T05:33:57.541973414Z');
    expect(r.labels).toMatchObject({
      label: 'ingress to s2 qps_400 0.6.0',
      runnerVersion: '0.8.1',
      url: 'http://35.199.42.164/fortio2/echo',
      requestedDuration: '30s',
    });
    expect(r.mode).toBe('unspecified');
    expect(r.percentiles).toEqual([]); // "Percentiles":[]
    expect(r.histogram).toHaveLength(27); // 27 Data entries
    expect(r.histogram?.[0]).toEqual({ fromMs: 3.599691, toMs: 4, count: 1 }); // Start 0.003599691, End 0.004
    // The file skips 0.12-0.14 s; buckets are kept as stated, gaps included.
    expect(r.histogram?.[25]).toEqual({ fromMs: 140, toMs: 160, count: 21 }); // Start 0.14, End 0.16
    expect(r.histogram?.[26]).toEqual({ fromMs: 180, toMs: 189.759494, count: 10 });
    expect(unmapped).toEqual(['Exactly', 'SocketCount']);
  });

  it('reads Nighthawk-converted Fortio with counts as strings (fortio_data_small.json)', () => {
    const { r, unmapped } = only(nighthawk('fortio_data_small.json'));
    expect(r.requests).toBe(48); // DurationHistogram.Count "48"
    // RetCodes {"200":"60"} disagrees with Count; both kept as the file says, no error.
    expect(r.errors).toBe(0);
    expect(r.histogram).toHaveLength(30);
    expect(r.histogram?.[0]).toEqual({ fromMs: 55.568383, toMs: 56.922111, count: 4 }); // "Count":"4"
    expect(r.histogram?.[29]).toEqual({ fromMs: 84.357119, toMs: 84.357119, count: 0 });
    expect(r.targetRps).toBe(1);
    expect(r.achievedRps).toBe(1);
    expect(r.connections).toBe(1);
    // "ActualDuration": 5 next to "RequestedDuration": "5s": seconds, Nighthawk's quirk.
    expect(r.durationMs).toBe(5000);
    expect(r.startedAt).toBe('2019-10-16T00:30:12Z');
    expect(r.labels).toEqual({
      label: 'A random label',
      url: 'http://127.0.0.1:10000/',
      requestedDuration: '5s',
    });
    expect(r.percentiles).toEqual([]);
    expect(unmapped).toEqual([]);
  });

  it('reads fortio_data_large.json and hist_fortio.json', () => {
    const large = only(nighthawk('fortio_data_large.json')).r;
    expect(large.requests).toBe(17988); // "Count": "17988" (RetCodes say 18000)
    expect(large.durationMs).toBe(30000); // 30 with "30s"
    expect(large.targetRps).toBe(50);
    expect(large.histogram).toHaveLength(73);
    expect(large.histogram?.[0]).toEqual({ fromMs: 0.135935, toMs: 0.135935, count: 1 });

    const h = only(nighthawk('hist_fortio.json')).r;
    expect(h.achievedRps).toBe(1999);
    expect(h.targetRps).toBe(1000);
    expect(h.connections).toBe(100);
    expect(h.requests).toBe(3996);
    expect(h.durationMs).toBe(2000); // 2 with "2s"
    expect(h.labels.runnerVersion).toBe('0.3.0');
    expect(h.histogram?.[1]).toEqual({ fromMs: 0.058719, toMs: 0.089651, count: 399 }); // 5.8719e-05
  });

  it("reads Nighthawk's current Fortio output with percentiles and stats", () => {
    const { r, unmapped } = only(nighthawk('output_formatter.medium.fortio.gold'));
    expect(r.percentiles).toEqual([
      { p: 50, ms: 65.077247 },
      { p: 75, ms: 74.465279 },
      { p: 80, ms: 78.065663 },
      { p: 90, ms: 85.045247 },
      { p: 95, ms: 247.513087 },
    ]);
    expect(r.minMs).toBe(53.798911);
    expect(r.maxMs).toBe(310.886399);
    expect(r.meanMs).toBe(78.433106);
    expect(r.stdDevMs).toBe(50.52302);
    expect(r.durationMs).toBe(2000.000429); // 2000000429 ns
    expect(r.requests).toBe(53);
    expect(r.achievedRps).toBe(27.99999399400129);
    expect(r.targetRps).toBe(30);
    expect(r.connections).toBe(300);
    expect(r.errors).toBe(0); // "200": "56"
    expect(r.histogram).toHaveLength(31);
    expect(r.labels.runType).toBe('HTTP');
    expect(r.startedAt).toBe('2020-01-11T12:47:57.259885200Z');
    expect(unmapped).toEqual([
      'DurationHistogram.Sum',
      'Jitter',
      'Sizes',
      'HeaderSizes',
      'BytesSent',
      'BytesReceived',
    ]);
  });

  it('reads the no-quirks variant (numbers as numbers) to the same result', () => {
    const quirks = only(nighthawk('output_formatter.medium.fortio.gold'));
    const plain = only(nighthawk('output_formatter.medium.fortio-noquirks.gold'));
    expect(plain).toEqual(quirks);
  });
});

const base = {
  RunType: 'HTTP',
  Labels: '',
  StartTime: '2024-05-04T10:11:12.123456789Z',
  RequestedQPS: '100',
  RequestedDuration: '10s',
  ActualQPS: 99.5,
  ActualDuration: 10003012345,
  NumThreads: 4,
  DurationHistogram: {
    Count: 100,
    Min: 0.001,
    Max: 0.004,
    Avg: 0.002,
    StdDev: 0.0005,
    Data: [{ Start: 0.001, End: 0.004, Percent: 100, Count: 100 }],
    Percentiles: [
      { Percentile: 99.9, Value: 0.0039 },
      { Percentile: 50, Value: 0.002 },
    ],
  },
  RetCodes: { '200': 100 },
};
const fortio = (patch: Record<string, unknown>) => JSON.stringify({ ...base, ...patch });

describe('decodeFortio: a run that sent no request', () => {
  it('states no latency (not 0 ms), and 0 requests', async () => {
    const { results } = await decodeResults(FORTIO_NOTHING_SENT);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      requests: 0,
      errors: 0,
      achievedRps: 0,
      durationMs: 104.035637,
      minMs: null,
      meanMs: null,
      maxMs: null,
      stdDevMs: null,
      percentiles: [],
      histogram: null,
    });
  });
});

describe('decodeFortio on crafted edge cases', () => {
  it('reads gRPC health results: SERVING is success, other statuses are errors', () => {
    const { r } = only(
      fortio({
        RunType: 'GRPC Health',
        Destination: 'fortioserver:8079',
        RetCodes: { SERVING: 97, Unavailable: 3 },
      }),
    );
    expect(r.errors).toBe(3);
    expect(r.errorsByCode).toEqual({ Unavailable: 3 });
    expect(r.labels).toMatchObject({ runType: 'GRPC Health', destination: 'fortioserver:8079' });
  });

  it('reads gRPC ping results: OK is success', () => {
    const { r } = only(fortio({ RunType: 'GRPC Ping', RetCodes: { OK: 100 } }));
    expect(r.errors).toBe(0);
  });

  it('counts HTTP 418 as success, as Fortio does (fhttp codeIsOK)', () => {
    const { r } = only(fortio({ RetCodes: { '200': 90, '418': 5, '503': 5 } }));
    expect(r.errors).toBe(5);
    expect(r.errorsByCode).toEqual({ '503': 5 });
  });

  it("prefers Fortio's own error count and keeps the codes", () => {
    const { r, unmapped } = only(
      fortio({
        RetCodes: { '200': 90, '503': 7, '-1': 3 },
        ErrorsDurationHistogram: { Count: 10, Min: 0.001, Data: [{ Start: 0, End: 1, Count: 10 }] },
      }),
    );
    expect(r.errors).toBe(10);
    expect(r.errorsByCode).toEqual({ '503': 7, '-1': 3 });
    expect(unmapped).toContain('ErrorsDurationHistogram.Data');
  });

  it('sorts percentiles and converts seconds exactly', () => {
    const { r } = only(fortio({}));
    expect(r.percentiles).toEqual([
      { p: 50, ms: 2 },
      { p: 99.9, ms: 3.9 },
    ]);
    expect(r.stdDevMs).toBe(0.5);
    expect(r.durationMs).toBe(10003.012345); // nanoseconds, as Fortio writes them
  });

  it('reads RequestedQPS "max" as no target', () => {
    const { r } = only(fortio({ RequestedQPS: 'max' }));
    expect(r.targetRps).toBeNull();
    expect(r.labels.requestedQps).toBe('max');
  });

  it('takes the mode from an Istio runner label', () => {
    const { r } = only(fortio({ Labels: 'ff93ac4f_qps_10_c_16_1024_none_mtls_baseline' }));
    expect(r.mode).toBe('baseline');
  });

  it('keeps a run with zero requests', async () => {
    const text = fortio({
      ActualQPS: 0,
      DurationHistogram: { Count: 0, Data: null, Percentiles: null },
      RetCodes: {},
    });
    const { r } = only(text);
    expect(r.requests).toBe(0);
    expect(r.errors).toBe(0);
    expect(r.histogram).toBeNull();
    expect(r.percentiles).toEqual([]);
    expect((await decodeResults(text, 'fortio')).results).toHaveLength(1);
  });

  it('reports missing percentiles as none', () => {
    const { DurationHistogram, ...rest } = base;
    const { Percentiles: _, ...histogram } = DurationHistogram;
    const { r } = only(JSON.stringify({ ...rest, DurationHistogram: histogram }));
    expect(r.percentiles).toEqual([]);
    expect(r.requests).toBe(100);
  });

  it('rejects "NaN" counts with the field', () => {
    const err = thrown(() =>
      decodeFortio(fortio({ DurationHistogram: { ...base.DurationHistogram, Count: 'NaN' } })),
    );
    expect(err.problem).toBe('non_finite');
    expect(err.field).toBe('DurationHistogram.Count');
  });

  it('rejects bare NaN and Infinity with line and field', () => {
    const text = JSON.stringify(base, null, 1).replace('"ActualQPS": 99.5', '"ActualQPS": NaN');
    const err = thrown(() => decodeFortio(text));
    expect(err.problem).toBe('non_finite');
    expect(err.field).toBe('ActualQPS');
    expect(err.line).toBe(text.split('\n').findIndex((l) => l.includes('NaN')) + 1);
    const inf = JSON.stringify(base).replace('"Max":0.004', '"Max":-Infinity');
    const e2 = thrown(() => decodeFortio(inf));
    expect(e2.field).toBe('DurationHistogram.Max');
    expect(e2.message).toContain('-Infinity');
  });

  it('rejects truncated JSON, naming where it stops', () => {
    const real = nighthawk('fortio_data_small.json');
    const cut = real.slice(0, real.indexOf('"Count": "5"'));
    const err = thrown(() => decodeFortio(cut));
    expect(err.problem).toBe('truncated');
    expect(err.field).toBe('DurationHistogram.Data[1]');
    expect(err.line).toBe(cut.split('\n').length);
  });

  it('rejects counts that are not whole numbers', () => {
    const err = thrown(() => decodeFortio(fortio({ NumThreads: 2.5 })));
    expect(err.problem).toBe('invalid_value');
    expect(err.field).toBe('NumThreads');
  });

  it('rejects what is not a Fortio result', () => {
    const err = thrown(() =>
      decodeFortio(publicFixture('envoyproxy-nighthawk/output_formatter.json.gold')),
    );
    expect(err.problem).toBe('format_mismatch');
    expect(err.message).toContain('DurationHistogram');
  });
});

describe('decodeFortio: the edges of each rule (found by mutation testing)', () => {
  it('reads ActualDuration as seconds only when it is within half to twice the requested', () => {
    // RequestedDuration "5s": 2.5 to 10 is seconds (Nighthawk's early converter); outside,
    // a Go time.Duration in nanoseconds.
    const duration = (ActualDuration: number, RequestedDuration = '5s') =>
      only(fortio({ ActualDuration, RequestedDuration })).r.durationMs;
    expect(duration(2.5)).toBe(2500);
    expect(duration(10)).toBe(10_000);
    expect(duration(2.4)).toBe(0.0000024);
    expect(duration(10.5)).toBe(0.0000105);
    // From 1e6 on, a value is nanoseconds (1 ms) even when it matches the requested seconds.
    expect(duration(999_999, '999999s')).toBe(999_999_000);
    expect(duration(1_000_000, '1000000s')).toBe(1);
    // No requested duration to compare with: nanoseconds.
    expect(only(fortio({ ActualDuration: 5, RequestedDuration: undefined })).r.durationMs).toBe(
      0.000005,
    );
  });

  it('keeps no blank label, and names a StartTime it cannot read', () => {
    const { r, unmapped } = only(
      fortio({ Labels: '   ', RunType: '', URL: 'http://a/', StartTime: 'yesterday' }),
    );
    expect(r.labels).toEqual({ url: 'http://a/', requestedDuration: '10s' });
    expect(r.startedAt).toBeNull();
    expect(unmapped).toEqual(['StartTime']);
    expect(only(fortio({ RequestedQPS: ' max ' })).r.labels.requestedQps).toBe('max');
  });

  it('counts no error for a code seen 0 times, and falls back to the codes without a Count', () => {
    const { r } = only(
      fortio({ RetCodes: { '200': 10, '503': 0, '502': 2 }, ErrorsDurationHistogram: {} }),
    );
    expect(r.errorsByCode).toEqual({ '502': 2 });
    expect(r.errors).toBe(2);
    // No RetCodes at all: the error count is unknown, not 0.
    const { RetCodes: _, ...noCodes } = base;
    expect(only(JSON.stringify(noCodes)).r.errors).toBeNull();
  });

  it('names the unknown fields of each object with their path', () => {
    const { unmapped } = only(
      fortio({
        Extra: 1,
        Destination: 'fortioserver:8079',
        DurationHistogram: { ...base.DurationHistogram, Sum: 2 },
        ErrorsDurationHistogram: { Count: 0, Avg: 0.1 },
      }),
    );
    expect(unmapped.sort()).toEqual([
      'DurationHistogram.Sum',
      'ErrorsDurationHistogram.Avg',
      'Extra',
    ]);
  });

  it('takes up to 1000 buckets and refuses more, naming the field', () => {
    const data = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ Start: i / 1000, End: (i + 1) / 1000, Count: 1 }));
    const hist = (Data: unknown) =>
      fortio({ DurationHistogram: { ...base.DurationHistogram, Data } });
    expect(only(hist(data(1000))).r.histogram).toHaveLength(1000);
    const err = thrown(() => decodeFortio(hist(data(1001))));
    expect(err.problem).toBe('too_large');
    expect(err.field).toBe('DurationHistogram.Data');
    expect(err.message).toContain('1001 buckets');
    for (const [Data, field] of [
      [{}, 'DurationHistogram.Data'],
      [[7], 'DurationHistogram.Data[0]'],
      [
        [
          { Start: 0, End: 0.001, Count: 1 },
          { Start: 0.001, Count: 1 },
        ],
        'DurationHistogram.Data[1]',
      ],
    ] as const) {
      const e = thrown(() => decodeFortio(hist(Data)));
      expect(e.problem).toBe('invalid_value');
      expect(e.field).toBe(field);
    }
  });

  it('skips a percentile entry that is not an object or has no value, refuses a non-list', () => {
    const hist = (Percentiles: unknown) =>
      fortio({ DurationHistogram: { ...base.DurationHistogram, Percentiles } });
    expect(
      only(hist([null, { Percentile: 90 }, { Value: 0.001 }, { Percentile: 75, Value: 0.0025 }])).r
        .percentiles,
    ).toEqual([{ p: 75, ms: 2.5 }]);
    const err = thrown(() => decodeFortio(hist({ Percentile: 50 })));
    expect(err.problem).toBe('invalid_value');
    expect(err.field).toBe('DurationHistogram.Percentiles');
  });

  it('names the field of each bad number: top level, histogram, bucket, percentile, codes', () => {
    const hist = (patch: Record<string, unknown>) =>
      fortio({ DurationHistogram: { ...base.DurationHistogram, ...patch } });
    const bucket = (b: Record<string, unknown>) =>
      hist({ Data: [{ Start: 0.001, End: 0.002, Count: 1, ...b }] });
    const pct = (q: Record<string, unknown>) =>
      hist({ Percentiles: [{ Percentile: 50, Value: 0.002, ...q }] });
    for (const [text, field] of [
      [fortio({ RequestedQPS: -1 }), 'RequestedQPS'],
      [fortio({ ActualQPS: -1 }), 'ActualQPS'],
      [fortio({ ActualDuration: -1 }), 'ActualDuration'],
      [hist({ Min: -1 }), 'DurationHistogram.Min'],
      [hist({ Max: -1 }), 'DurationHistogram.Max'],
      [hist({ Avg: -1 }), 'DurationHistogram.Avg'],
      [hist({ StdDev: -1 }), 'DurationHistogram.StdDev'],
      [bucket({ Start: 'soon' }), 'DurationHistogram.Data[0].Start'],
      [bucket({ End: 'later' }), 'DurationHistogram.Data[0].End'],
      [bucket({ Count: -1 }), 'DurationHistogram.Data[0].Count'],
      [pct({ Percentile: 'half' }), 'DurationHistogram.Percentiles[0].Percentile'],
      [pct({ Value: -1 }), 'DurationHistogram.Percentiles[0].Value'],
      [fortio({ RetCodes: { '503': -1 } }), 'RetCodes.503'],
      [fortio({ ErrorsDurationHistogram: { Count: 1.5 } }), 'ErrorsDurationHistogram.Count'],
      // The RFC 3339 shape naming no instant: refused (values.ts rfc3339).
      [fortio({ StartTime: '2024-02-30T00:00:00Z' }), 'StartTime'],
    ] as const) {
      const err = thrown(() => decodeFortio(text));
      expect(err.field, field).toBe(field);
    }
    const notFortio = thrown(() => decodeFortio('{"RunType":"HTTP"}'));
    expect(notFortio.field).toBe('DurationHistogram');
  });

  it('needs each of Start, End and Count in a bucket', () => {
    for (const missing of ['Start', 'End', 'Count']) {
      const b: Record<string, unknown> = { Start: 0.001, End: 0.002, Count: 1 };
      delete b[missing];
      const err = thrown(() =>
        decodeFortio(fortio({ DurationHistogram: { ...base.DurationHistogram, Data: [b] } })),
      );
      expect(err.problem).toBe('invalid_value');
      expect(err.field).toBe('DurationHistogram.Data[0]');
    }
  });

  it('states nothing it was not given: no StartTime, duration, stats or buckets', () => {
    const { Min: _a, Max: _b, Avg: _c, StdDev: _d, Data: _e, ...counts } = base.DurationHistogram;
    const { StartTime: _f, ActualDuration: _g, ...rest } = base;
    const { r, unmapped } = only(JSON.stringify({ ...rest, DurationHistogram: counts }));
    expect(r).toMatchObject({
      startedAt: null,
      durationMs: null,
      minMs: null,
      maxMs: null,
      meanMs: null,
      stdDevMs: null,
      histogram: null,
    });
    expect(unmapped).toEqual([]);
    // A runner result with no histogram at all (smp.decoder hands each one over).
    const none = fortioToResult(
      { RetCodes: { '200': 1 } },
      { at: '', name: '', unmapped: new Unmapped() },
    );
    expect([none.requests, none.histogram, none.errors]).toEqual([null, null, 0]);
  });

  it('counts as success only 2xx of three digits (and 418), not 2000 or 1200', () => {
    const { r } = only(
      fortio({ RetCodes: { '200': 1, '299': 1, '2000': 1, '1200': 1, '199': 1 } }),
    );
    expect(r.errorsByCode).toEqual({ '199': 1, '1200': 1, '2000': 1 });
  });

  it("takes Fortio's own error count over the codes' sum, and skips a code with no count", () => {
    const { r } = only(
      fortio({
        RetCodes: { '200': 95, '503': 5, '502': null },
        ErrorsDurationHistogram: { Count: 7 },
      }),
    );
    expect(r.errors).toBe(7);
    expect(r.errorsByCode).toEqual({ '503': 5 });
  });

  it('says what is wrong with a histogram, a bucket or the percentiles', () => {
    const hist = (patch: Record<string, unknown>) =>
      fortio({ DurationHistogram: { ...base.DurationHistogram, ...patch } });
    const message = (text: string) => thrown(() => decodeFortio(text)).message;
    expect(message(hist({ Data: {} }))).toBe('DurationHistogram.Data must be an array');
    expect(message(hist({ Data: [7] }))).toBe('DurationHistogram.Data[0] must be an object');
    expect(message(hist({ Data: [{ Start: 0, Count: 1 }] }))).toBe(
      'DurationHistogram.Data[0] needs Start, End and Count',
    );
    expect(message(hist({ Percentiles: {} }))).toBe(
      'DurationHistogram.Percentiles must be an array',
    );
  });
});
