import { describe, expect, it } from 'vitest';
import { sniff } from './detect.ts';
import { decodeResults } from './index.ts';
import { publicFixture, thrown } from './test-fixtures.ts';
import { decodeVegetaJson, isVegetaLine, VegetaJsonAggregator } from './vegeta.decoder.ts';

// Lines Vegeta wrote, as published (fixtures/public/vegeta/PROVENANCE.md), three generations.
const easyjson = publicFixture('vegeta/ocm-api-load-results.json');
const named = publicFixture('vegeta/e2e-2019-results.json');
const early = publicFixture('vegeta/loadgentest-2016-results.json');

describe('Vegeta JSON results', () => {
  it('is told by its first line in each generation', async () => {
    for (const text of [easyjson, named, early]) expect(sniff(text)).toBe('vegeta');
    expect((await decodeResults(easyjson)).format).toBe('vegeta');
    expect((await decodeResults(early, 'vegeta')).format).toBe('vegeta');
  });

  it('counts successes as Vegeta does (200 <= code < 400), the rest by code', () => {
    const [point] = decodeVegetaJson(easyjson).results;
    // Codes 0 (no response), 200 and 300.
    expect(point).toMatchObject({
      requests: 3,
      errors: 1,
      errorsByCode: { '0': 1 },
      labels: { tool: 'vegeta', attack: 'access-review' },
      startedAt: '2022-03-17T16:12:32.077719Z',
    });
    // 788,624,775 ns: 788.624 ms to the whole microsecond, the true value below 788.625.
    expect(point?.percentiles[0]).toEqual({
      p: 50,
      ms: 788.624,
      exact: false,
      method: 'raw',
      lower: 788.624,
      upper: 788.625,
    });
    // All three began at the same instant: the span is one latency, to the microsecond.
    expect(Math.abs((point?.durationMs as number) - 788.624775)).toBeLessThan(0.001);
  });

  it('reads the earlier generations: a named attack, and no attack or seq at all', () => {
    expect(decodeVegetaJson(named).results[0]).toMatchObject({
      requests: 1,
      errors: 1,
      errorsByCode: { '0': 1 },
      minMs: 1.089,
      startedAt: '2019-11-04T07:46:16.885395Z',
    });
    expect(decodeVegetaJson(early).results[0]).toMatchObject({
      requests: 1,
      errors: 0,
      maxMs: 0.49,
      labels: { tool: 'vegeta' },
    });
  });

  it('refuses a line Vegeta does not write, naming it', () => {
    const first = easyjson.split('\n')[0] as string;
    expect(thrown(() => decodeVegetaJson(`${first}\n{"code":200,`))).toMatchObject({
      problem: 'invalid_line',
      line: 2,
    });
    expect(
      thrown(() =>
        decodeVegetaJson(`${first}\n${first.replace('"latency":788624775', '"latency":-1')}`),
      ),
    ).toMatchObject({ problem: 'invalid_line', line: 2, field: 'latency' });
    expect(
      thrown(() =>
        decodeVegetaJson(first.replace(/"timestamp":"[^"]*"/, '"timestamp":"yesterday"')),
      ),
    ).toMatchObject({ problem: 'invalid_line', line: 1, field: 'timestamp' });
  });
});

// Lines in the shape lib/results_easyjson.go writes (tsenart/vegeta cf58112): attack, seq,
// code, timestamp (RFC 3339), latency (int64 ns), then the fields this decoder does not map.
const line = (code: number, timestamp: string, latency: number, attack = 'a', seq = 0) =>
  `{"attack":"${attack}","seq":${seq},"code":${code},"timestamp":"${timestamp}","latency":${latency},"bytes_out":0,"bytes_in":0,"error":"","body":null,"method":"GET","url":"http://x/","headers":null}`;

describe('Vegeta JSON results, by the rules of lib/metrics.go', () => {
  it('counts 200 <= code < 400 as successes (Metrics.Add), every other code as an error', () => {
    const codes = [199, 200, 399, 400, 0, 399, 65535];
    const text = codes.map((c) => line(c, '2020-01-01T00:00:00Z', 1000)).join('\n');
    const [point] = decodeVegetaJson(text).results;
    // 199, 400, 0 and 65535 fall outside [200, 400).
    expect(point?.requests).toBe(7);
    expect(point?.errors).toBe(4);
    expect(point?.errorsByCode).toEqual({ '0': 1, '199': 1, '400': 1, '65535': 1 });
  });

  it('spans from the earliest start to the latest end, whichever lines they are on', () => {
    // Line 1 starts at 1 s and takes 2.500999 ms (2,500 us whole): it ends at 1.0025 s.
    // Line 2 starts first, at 0.5 s; line 3 starts at 1.2 s and takes 0: the latest end,
    // though not the last line. Span: 1.2 s - 0.5 s = 700 ms.
    const text = [
      line(200, '2020-01-01T00:00:01Z', 2_500_999),
      line(200, '2020-01-01T00:00:00.5Z', 1_000),
      line(200, '2020-01-01T00:00:01.2Z', 0),
      line(200, '2020-01-01T00:00:00.9Z', 1_000),
    ].join('\n');
    const [point] = decodeVegetaJson(text).results;
    expect(point?.startedAt).toBe('2020-01-01T00:00:00.500000Z');
    expect(point?.durationMs).toBe(700);
    // Latencies to the whole microsecond: 0, 1, 1 and 2500 us.
    expect(point?.minMs).toBe(0);
    expect(point?.maxMs).toBe(2.5);
    expect(point?.achievedRps).toBeCloseTo(4 / 0.7, 9);
  });

  it('ends the span at the end of the longest request when it outlasts the later starts', () => {
    // 0 s + 3 s = 3 s; the second starts at 1 s and ends at 1.000002 s.
    const text = [
      line(200, '2020-01-01T00:00:00Z', 3_000_000_000),
      line(200, '2020-01-01T00:00:01Z', 2_000),
    ].join('\n');
    const [point] = decodeVegetaJson(text).results;
    expect(point?.durationMs).toBe(3000);
    expect(point?.startedAt).toBe('2020-01-01T00:00:00.000000Z');
  });

  it('labels the attack only when every line names the same non-empty one', () => {
    const two = [
      line(200, '2020-01-01T00:00:00Z', 1, 'x'),
      line(200, '2020-01-01T00:00:00Z', 1, 'y'),
    ];
    expect(decodeVegetaJson(two.join('\n')).results[0]?.labels).toEqual({ tool: 'vegeta' });
    const same = [
      line(200, '2020-01-01T00:00:00Z', 1, 'x'),
      line(200, '2020-01-01T00:00:00Z', 1, 'x'),
    ];
    expect(decodeVegetaJson(same.join('\n')).results[0]?.labels).toEqual({
      tool: 'vegeta',
      attack: 'x',
    });
    // vegeta attack -name defaults to "": no label.
    expect(decodeVegetaJson(line(200, '2020-01-01T00:00:00Z', 1, '')).results[0]?.labels).toEqual({
      tool: 'vegeta',
    });
  });

  it('names the Result fields it does not map (lib/results.go)', () => {
    expect(decodeVegetaJson(line(200, '2020-01-01T00:00:00Z', 1)).unmapped).toEqual([
      'bytes_out',
      'bytes_in',
      'error',
      'body',
      'method',
      'url',
      'headers',
    ]);
  });

  it('skips blank and whitespace-only lines, counting them in the line numbers', () => {
    const ok = line(200, '2020-01-01T00:00:00Z', 1000);
    const [point] = decodeVegetaJson(`${ok}\n\n   \n${ok}\n`).results;
    expect(point?.requests).toBe(2);
    expect(thrown(() => decodeVegetaJson(`${ok}\n  \nnope`))).toMatchObject({ line: 3 });
  });

  it('accepts latency 0 and codes 0 and 65535 (Code is a uint16), refuses the rest', () => {
    const ts = '2020-01-01T00:00:00Z';
    expect(decodeVegetaJson(line(0, ts, 0)).results[0]?.maxMs).toBe(0);
    const field = (text: string) => thrown(() => decodeVegetaJson(text)).field;
    expect(field(line(-1, ts, 1))).toBe('code');
    expect(field(line(65536, ts, 1))).toBe('code');
    expect(field(line(200.5, ts, 1))).toBe('code');
    expect(field(line(200, ts, 1.5))).toBe('latency');
    expect(field(line(200, ts, 2 ** 53))).toBe('latency');
    expect(field(line(200, ts, 1).replace('"latency":1', '"latency":"1"'))).toBe('latency');
    expect(field(line(200, ts, 1).replace(`"timestamp":"${ts}"`, '"timestamp":1577836800'))).toBe(
      'timestamp',
    );
    for (const notObject of ['5', 'null', '"x"', 'true']) {
      expect(thrown(() => decodeVegetaJson(notObject))).toMatchObject({
        problem: 'invalid_line',
        field: 'line',
      });
    }
  });

  it('refuses a stream that ended with no request', () => {
    const agg = new VegetaJsonAggregator();
    agg.write('\n  \n');
    expect(agg.linesRead).toBe(2);
    expect(thrown(() => agg.end())).toMatchObject({ problem: 'empty' });
  });

  it("tells Vegeta's first line by its opening fields in each generation", () => {
    const tail = ',"timestamp":"2020-01-01T00:00:00Z","latency":12,"bytes_out":0}';
    expect(isVegetaLine(`{"attack":"","seq":0,"code":0${tail}`)).toBe(true);
    expect(isVegetaLine(`{"attack":"ab","seq":12,"code":200${tail}`)).toBe(true);
    expect(isVegetaLine(`{"attack":"a\\"b\\\\","seq":3,"code":503${tail}`)).toBe(true);
    expect(isVegetaLine(`  {"attack":"a","seq":1,"code":1${tail}  `)).toBe(true);
    expect(isVegetaLine(`x{"attack":"a","seq":1,"code":1${tail}`)).toBe(false);
    expect(isVegetaLine(`{"attack":"a","seq":"1","code":1${tail}`)).toBe(false);
    expect(isVegetaLine(`{"attack":"a","seq":1,"code":"200"${tail}`)).toBe(false);
    expect(isVegetaLine(`{"attack":"a","seq":,"code":1${tail}`)).toBe(false);
    expect(isVegetaLine(`{"attack":"a"b","seq":1,"code":1${tail}`)).toBe(false);
    // encoding/json before 2018: code, timestamp, latency first.
    expect(
      isVegetaLine(
        '{"code":200,"timestamp":"2016-10-17T09:30:53.99Z","latency":490871,"bytes_out":0}',
      ),
    ).toBe(true);
    expect(isVegetaLine('{"code":20,"timestamp":"","latency":4,"error":""}')).toBe(true);
    expect(isVegetaLine(' {"code":200,"timestamp":"t","latency":4,"error":""}')).toBe(true);
    expect(isVegetaLine('x{"code":200,"timestamp":"t","latency":4,"error":""}')).toBe(false);
    expect(isVegetaLine('{"code":"200","timestamp":"t","latency":4,"error":""}')).toBe(false);
    expect(isVegetaLine('{"code":200,"timestamp":"t","latency":"4","error":""}')).toBe(false);
    expect(isVegetaLine('{"code":200,"timestamp":"t","latency":,"error":""}')).toBe(false);
    expect(isVegetaLine('{"code":,"timestamp":"t","latency":4,"error":""}')).toBe(false);
    expect(isVegetaLine('{"code":200,"timestamp":"a"b","latency":4,"error":""}')).toBe(false);
    expect(isVegetaLine('{"code":200,"timestamp":"t","latency":4}')).toBe(false);
  });
});

describe('Vegeta JSON results: what a refusal says', () => {
  const ok = line(200, '2020-01-01T00:00:00Z', 1000);
  const message = (text: string) => thrown(() => decodeVegetaJson(text)).message;

  it('names the line and what is wrong with it', () => {
    const notJson = thrown(() => decodeVegetaJson(`${ok}\n{"code":200,`));
    expect(notJson.message).toBe('line 2: not a JSON object');
    expect(notJson.field).toBeUndefined();
    expect(message('5')).toBe('line 1: line is not a JSON object');
    expect(message(line(200, '2020-01-01T00:00:00Z', -1))).toBe(
      'line 1: latency must be a whole number of nanoseconds >= 0',
    );
    expect(message(line(70000, '2020-01-01T00:00:00Z', 1))).toBe(
      'line 1: code must be an HTTP status (0 when no response came)',
    );
    expect(message(line(200, 'yesterday', 1))).toBe(
      'line 1: timestamp must be an RFC 3339 timestamp',
    );
    const agg = new VegetaJsonAggregator();
    expect(thrown(() => agg.end()).message).toBe('the file is empty');
  });

  it('takes only a string attack as the label: Result.Attack is a Go string', () => {
    // A number where lib/results.go has a string: no label from it (labels are strings).
    const [point] = decodeVegetaJson(ok.replace('"attack":"a"', '"attack":7')).results;
    expect(point?.labels).toEqual({ tool: 'vegeta' });
  });
});
