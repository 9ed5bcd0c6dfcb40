import { loadResult } from '@meshbench/schema';
import { build, type JsHistogram } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { detectFormat } from './detect.ts';
import { decodeResults } from './index.ts';
import {
  decodeHdr,
  decodeK6Ndjson,
  decodeK6NdjsonStream,
  K6NdjsonAggregator,
} from './k6-ndjson.decoder.ts';
import { ResultFileError } from './result-file-error.ts';
import { localFixture, rejected } from './test-fixtures.ts';

// fixtures/k6-out-json.ndjson: lines shaped as grafana/k6 writes them (README.md there).
const FIXTURE = localFixture('k6-out-json.ndjson');
const at = (h: number, m: number, s: number) => Date.UTC(2026, 10, 26, h, m, s);

function refused(fn: () => unknown): ResultFileError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ResultFileError) return e;
    throw e;
  }
  throw new Error('expected a ResultFileError');
}

/** Non-zero [value, count] pairs of a histogram, low to high. */
function counts(h: JsHistogram): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < h.countsArrayLength; i++) {
    const c = h.getCountAtIndex(i);
    if (c > 0) out.push([h.valueFromIndex(i), c]);
  }
  return out;
}

describe('decodeK6Ndjson on a k6 --out json stream', () => {
  const { steps, unmapped } = decodeK6Ndjson(FIXTURE);

  it('makes one step per scenario, in time order, with the mode its name or URL says', () => {
    expect(steps.map((s) => [s.scenario, s.result.mode])).toEqual([
      ['baseline', 'baseline'],
      ['both', 'both'],
      ['warmup', 'https'],
    ]);
    for (const s of steps) loadResult.parse(s.result);
  });

  it('counts requests and failures, and times the step from its first start to its last end', () => {
    const [baseline, both, warmup] = steps.map((s) => s.result);
    expect(baseline).toMatchObject({
      requests: 3,
      errors: 1,
      errorsByCode: { '503': 1 },
      minMs: 1.234567,
      maxMs: 10,
      // first request started at 250 ms - 1.234567 ms, the last ended at 1100 ms
      durationMs: 851.234567,
      connections: null,
      startedAt: '2026-11-26T15:00:00.248Z',
      labels: {
        scenario: 'baseline',
        url: 'http://fortio-server.bench.svc:8080/echo',
        proto: 'HTTP/1.1',
        runner: 'k6',
      },
    });
    expect(baseline?.meanMs).toBeCloseTo((1.234567 + 2.5 + 10) / 3, 12);
    expect(baseline?.achievedRps).toBeCloseTo(3 / 0.851234567, 9);
    // 5000.000001 ms - 3 ms (time kept to the microsecond) to 5999 ms
    expect(both).toMatchObject({ requests: 2, errors: 1, errorsByCode: { '0': 1 } });
    expect(both?.durationMs).toBeCloseTo(1002, 9);
    expect(warmup).toMatchObject({
      requests: 1,
      errors: 0,
      durationMs: 40.25,
      labels: { proto: 'HTTP/2.0' },
    });
  });

  it('reads percentiles at the nearest rank from a 3-digit HdrHistogram of microseconds', () => {
    // baseline: 1235, 2500, 10000 us. 2500 is in the 2-us buckets [2048, 4096): [2500, 2501];
    // 10000 in the 8-us buckets [8192, 16384): [10000, 10007]. Reported: the bucket's top.
    const p = (i: number) => steps[i]?.result.percentiles ?? [];
    expect(p(0).find((x) => x.p === 50)).toEqual({
      p: 50,
      ms: 2.501,
      exact: false,
      method: 'hdr',
      lower: 2.4995,
      upper: 2.5015,
      relativeError: expect.closeTo(0.0015 / 2.501, 12),
    });
    expect(p(0).find((x) => x.p === 75)?.ms).toBe(10.007);
    expect(p(0).find((x) => x.p === 99)).toMatchObject({
      ms: 10.007,
      lower: 9.9995,
      upper: 10.0075,
    });
    // both: 500 us (exact, 1-us buckets) and 3000 us
    expect(p(1).find((x) => x.p === 50)).toMatchObject({ ms: 0.5, lower: 0.4995, upper: 0.5005 });
    expect(p(1).find((x) => x.p === 90)?.ms).toBe(3.001);
    // warmup: 40250 us in the 32-us buckets [32768, 65536): [40224, 40255]
    expect(p(2).find((x) => x.p === 50)).toMatchObject({
      ms: 40.255,
      lower: 40.2235,
      upper: 40.2555,
    });
    expect(p(0).map((x) => x.p)).toEqual([50, 75, 90, 95, 99, 99.9, 99.99]);
  });

  it('cuts each step into epoch-aligned 1 s intervals by request end time', () => {
    const rows = (i: number) => steps[i]?.intervals.map(({ hdr: _h, ...rest }) => rest);
    expect(rows(0)).toEqual([
      { startMs: at(15, 0, 0), durationMs: 1000, count: 2, errors: 0, minMs: 1.234567, maxMs: 2.5 },
      { startMs: at(15, 0, 1), durationMs: 1000, count: 1, errors: 1, minMs: 10, maxMs: 10 },
    ]);
    expect(rows(1)).toEqual([
      { startMs: at(15, 0, 5), durationMs: 1000, count: 2, errors: 1, minMs: 0.5, maxMs: 3 },
    ]);
    const first = decodeHdr(steps[0]?.intervals[0]?.hdr as Uint8Array);
    expect(counts(first).map(([, c]) => c)).toEqual([1, 1]);
    expect(first.numberOfSignificantValueDigits).toBe(3);
    expect(decodeHdr(steps[0]?.hdr as Uint8Array).totalCount).toBe(3);
  });

  it('lists the metrics it has no place for', () => {
    expect(unmapped).toEqual(
      expect.arrayContaining(['http_req_waiting', 'iterations', 'data_sent', 'iteration_duration']),
    );
    expect(unmapped).not.toContain('http_reqs');
    expect(unmapped).not.toContain('http_req_duration');
  });

  it('takes the peak VU count as connections when the file holds one scenario', () => {
    const one = FIXTURE.split('\n')
      .filter((l) => !l.includes('"scenario":"both"') && !l.includes('"scenario":"warmup"'))
      .join('\n');
    expect(decodeK6Ndjson(one).steps.map((s) => s.result.connections)).toEqual([10]);
  });

  it('is told apart by auto-detection and imported through decodeResults', async () => {
    expect(await detectFormat(FIXTURE)).toBe('k6-ndjson');
    const decoded = await decodeResults(FIXTURE);
    expect(decoded.format).toBe('k6-ndjson');
    expect(decoded.results.map((r) => r.requests)).toEqual([3, 2, 1]);
    expect(await decodeResults(FIXTURE, 'k6-ndjson')).toEqual(decoded);
    const err = await rejected(() => decodeResults(FIXTURE, 'k6'));
    expect(err.problem).toBe('format_mismatch');
  });
});

describe('decodeK6Ndjson refusals', () => {
  const point = (data: object, metric = 'http_req_duration') =>
    JSON.stringify({ type: 'Point', data, metric });
  const ok = point({ time: '2026-11-26T15:00:00Z', value: 1, tags: { scenario: 'a' } });

  it('names the line that is not JSON', () => {
    const err = refused(() => decodeK6Ndjson(`${ok}\n${ok}\n{"type":"Point",\n`));
    expect(err).toMatchObject({ problem: 'invalid_json', line: 3 });
    expect(err.message).toContain('line 3');
  });

  it.each([
    ['{"type":"Sample","metric":"x","data":{}}', 'type'],
    ['[1]', 'type'],
    ['{"type":"Point","metric":"","data":{}}', 'metric'],
    ['{"type":"Point","metric":"x","data":5}', 'data'],
    ['{"type":"Metric","metric":"x","data":{"type":"histogram"}}', 'data.type'],
    [point({ time: 'yesterday', value: 1, tags: null }), 'data.time'],
    [point({ time: '2026-11-26T15:00:00Z', value: '1', tags: null }), 'data.value'],
    [point({ time: '2026-11-26T15:00:00Z', value: -2, tags: null }), 'data.value'],
    [point({ time: '2026-11-26T15:00:00Z', value: 1, tags: [] }), 'data.tags'],
    [
      point({ time: '2026-11-26T15:00:00Z', value: 1, tags: { scenario: 7 } }),
      'data.tags.scenario',
    ],
    [
      point({ time: '2026-11-26T15:00:00Z', value: 0.5, tags: null }, 'http_req_failed'),
      'data.value',
    ],
  ])('refuses %s at its field', (bad, field) => {
    const err = refused(() => decodeK6Ndjson(`${ok}\n\n${bad}\n`));
    expect(err).toMatchObject({ problem: 'invalid_value', line: 3, field });
    expect(err.message).toContain('line 3');
  });

  it('refuses a stream with no http_req_duration point', () => {
    const vus =
      '{"type":"Point","data":{"time":"2026-11-26T15:00:00Z","value":4,"tags":null},"metric":"vus"}';
    const err = refused(() => decodeK6Ndjson(`${vus}\n`));
    expect(err.problem).toBe('no_results');
    expect(err.message).toContain('vus');
  });
});

// --- a larger stream from known raw values ---------------------------------------------

/** mulberry32: a seeded PRNG, so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Raw {
  scenario: string;
  endUs: number;
  ms: number;
  failed: boolean;
}

function synthetic(n: number, seed: number): { raws: Raw[]; text: string } {
  const rnd = prng(seed);
  const t0 = Date.UTC(2026, 10, 26, 15, 0, 0) * 1000 + 123_456;
  const raws: Raw[] = [];
  for (let i = 0; i < n; i++) {
    const scenario = i % 3 === 0 ? 'stage_1k' : 'stage_5k';
    // Log-uniform from 50 us to 2 s, with nanosecond digits as k6's metrics.D gives.
    const ms = Math.round(0.05 * 40_000 ** rnd() * 1e6) / 1e6;
    // 12 s of requests in order, with a jitter of 0.3 s (k6 flushes every 200 ms)...
    let endUs = t0 + Math.floor((i / n) * 12_000_000 + rnd() * 300_000);
    // ... and 1 in 500 written 9 s late (after its interval is sealed).
    if (i % 500 === 7) endUs -= 9_000_000;
    raws.push({ scenario, endUs, ms, failed: rnd() < 0.02 });
  }
  const iso = (us: number) => {
    const d = new Date(Math.floor(us / 1000)).toISOString().slice(0, 19);
    return `${d}.${String(us % 1_000_000).padStart(6, '0')}417Z`;
  };
  const lines = [
    '{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":"http_req_duration"}',
  ];
  for (const r of raws) {
    const tags = `{"expected_response":"${!r.failed}","group":"","method":"GET","name":"http://s/","proto":"HTTP/1.1","scenario":"${r.scenario}","status":"${r.failed ? 503 : 200}","url":"http://s/"}`;
    lines.push(
      `{"type":"Point","data":{"time":"${iso(r.endUs)}","value":${r.ms},"tags":${tags}},"metric":"http_req_duration"}`,
    );
    lines.push(
      `{"type":"Point","data":{"time":"${iso(r.endUs)}","value":${r.failed ? 1 : 0},"tags":${tags}},"metric":"http_req_failed"}`,
    );
  }
  return { raws, text: `${lines.join('\n')}\n` };
}

/** Nearest rank over the raw values: the ceil(p/100 x N)-th smallest (p with <= 3 decimals). */
function nearestRank(sorted: number[], p: number): number {
  const rank = Math.max(1, Math.ceil((Math.round(p * 1000) * sorted.length) / 100_000));
  return sorted[rank - 1] as number;
}

describe('decodeK6Ndjson on a synthetic stream', () => {
  const N = 30_000;
  const { raws, text } = synthetic(N, 42);
  const percentiles = [1, 10, 50, 75, 90, 99, 99.9, 99.99, 100];

  it.each([1000, 250])(
    'matches the raw values exactly or within the HDR bound (interval %i ms)',
    (intervalMs) => {
      const { steps } = decodeK6Ndjson(text, { intervalMs, percentiles });
      expect(steps.map((s) => s.scenario).sort()).toEqual(['stage_1k', 'stage_5k']);
      for (const step of steps) {
        const mine = raws.filter((r) => r.scenario === step.scenario);
        const sorted = mine.map((r) => r.ms).sort((a, b) => a - b);
        expect(step.result.requests).toBe(mine.length);
        expect(step.result.errors).toBe(mine.filter((r) => r.failed).length);
        expect(step.result.minMs).toBe(sorted[0]);
        expect(step.result.maxMs).toBe(sorted[sorted.length - 1]);
        for (const q of step.result.percentiles) {
          const exact = nearestRank(sorted, q.p);
          expect(exact).toBeGreaterThanOrEqual(q.lower as number);
          expect(exact).toBeLessThanOrEqual(q.upper as number);
          // 3 significant digits: within 1/1024 of the value, plus the 0.5 us rounding.
          expect(Math.abs(q.ms - exact)).toBeLessThanOrEqual(exact / 1024 + 0.0005 + 1e-12);
          expect(Math.abs(q.ms - exact)).toBeLessThanOrEqual(
            (q.relativeError as number) * q.ms + 1e-12,
          );
        }

        // Each interval is the histogram of its own raw values.
        const byInterval = new Map<number, Raw[]>();
        for (const r of mine) {
          const start = Math.floor(r.endUs / 1000 / intervalMs) * intervalMs;
          byInterval.set(start, [...(byInterval.get(start) ?? []), r]);
        }
        expect(step.intervals.map((i) => i.startMs)).toEqual(
          [...byInterval.keys()].sort((a, b) => a - b),
        );
        for (const iv of step.intervals) {
          const rs = byInterval.get(iv.startMs) as Raw[];
          const ms = rs.map((r) => r.ms);
          expect(iv).toMatchObject({
            durationMs: intervalMs,
            count: rs.length,
            errors: rs.filter((r) => r.failed).length,
            minMs: Math.min(...ms),
            maxMs: Math.max(...ms),
          });
          const reference = build({ numberOfSignificantValueDigits: 3 }) as JsHistogram;
          for (const v of ms) reference.recordValue(Math.round(v * 1000));
          const got = decodeHdr(iv.hdr);
          expect(got.totalCount).toBe(rs.length);
          expect(counts(got)).toEqual(counts(reference));
        }
      }
    },
  );

  it('keeps a bounded number of live histograms, however long the stream', () => {
    const agg = new K6NdjsonAggregator({ intervalMs: 100 });
    let most = 0;
    for (const l of text.split('\n')) {
      agg.line(l);
      most = Math.max(most, agg.liveHistograms);
    }
    // 2 steps x (1 + 50 live intervals of 100 ms, + the few late samples reopen)
    expect(most).toBeLessThanOrEqual(2 * (1 + 50 + 2));
    expect(agg.finish().steps.reduce((n, s) => n + s.intervals.length, 0)).toBeGreaterThan(200);
  });

  it('gives the same result fed whole, line by line, or in chunks that cut lines', async () => {
    const whole = decodeK6Ndjson(text);
    const byLine = new K6NdjsonAggregator();
    for (const l of text.split('\n')) byLine.line(l);
    expect(byLine.finish()).toEqual(whole);
    async function* chunks() {
      const rnd = prng(7);
      for (let i = 0; i < text.length; ) {
        const n = 1 + Math.floor(rnd() * 5000);
        yield text.slice(i, i + n);
        i += n;
      }
    }
    expect(await decodeK6NdjsonStream(chunks())).toEqual(whole);
  });
});
