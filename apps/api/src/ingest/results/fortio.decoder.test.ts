import { loadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { decodeFortio as fromDocument } from './fortio.decoder.ts';
import { decodeResults } from './index.ts';
import { ResultFileError } from './result-file-error.ts';
import { FORTIO_NOTHING_SENT, publicFixture } from './test-fixtures.ts';
import { parseJson } from './values.ts';

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
