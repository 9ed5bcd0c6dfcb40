import { FORMAT_HINT, type LoadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { decodeResults } from './index.ts';
import { decodeLocustCsv, decodeLocustJson, parseCsv } from './locust.decoder.ts';
import { localFixture, publicFixture, rejected } from './test-fixtures.ts';

const byName = (results: LoadResult[], name: string) =>
  results.find((r) => r.labels.name === name) as LoadResult;
const pct = (r: LoadResult, p: number) => r.percentiles.find((q) => q.p === p);

describe('Locust CSV files of 2.12.1 (the real tool, fixtures/locust-2.12.1_*)', () => {
  it('_stats.csv: a result per row, the aggregated last', () => {
    const { results, unmapped } = decodeLocustCsv(localFixture('locust-2.12.1_stats.csv'));
    expect(results.map((r) => [r.labels.method, r.labels.name, r.labels.aggregated])).toEqual([
      ['GET', '/delay', undefined],
      ['GET', '/fail', undefined],
      [undefined, 'Aggregated', 'true'],
    ]);
    const delay = byName(results, '/delay');
    // GET,/delay,608,0,95,89.137...,1.106...,362.720...,2.0,187.890...,0.0,96,110,...
    expect(delay).toMatchObject({
      requests: 608,
      errors: 0,
      meanMs: 89.13759422204411,
      minMs: 1.1061410000365868,
      maxMs: 362.72047600004953,
      achievedRps: 187.89089945104908,
    });
    // The median column (rank ceil(608 / 2) = 304) is p50, not the "50%" column (rank 305).
    expect(pct(delay, 50)).toMatchObject({ ms: 95, lower: 94.5, upper: 95.5 });
    // 608 x 0.66 = 401.28: Locust's rank is the nearest rank; the key 110's bucket bounds it.
    expect(pct(delay, 66)).toMatchObject({ ms: 110, lower: 105, upper: 115 });
    // 608 x 0.75 = 456, whole: the nearest rank is one below Locust's.
    expect(pct(delay, 75)).toMatchObject({ ms: 120, lower: 1.1061410000365868, upper: 125 });
    expect(unmapped).toEqual(['Average Content Size', 'Failures/s']);
  });

  it('_stats_history.csv: each entry once, from its last row, with no window figure', () => {
    const { results, unmapped } = decodeLocustCsv(localFixture('locust-2.12.1_stats_history.csv'));
    expect(results).toHaveLength(3);
    const total = byName(results, 'Aggregated');
    expect(total).toMatchObject({ requests: 702, errors: 94, achievedRps: null, connections: 20 });
    expect(total.percentiles.map((q) => q.p)).toEqual([50]);
    expect(unmapped).toEqual([
      'Requests/s (a trailing window)',
      'Failures/s (a trailing window)',
      'percentiles (a trailing window)',
      'Average Content Size',
    ]);
  });

  it('_failures.csv: failures by HTTP status', () => {
    const { results } = decodeLocustCsv(localFixture('locust-2.12.1_failures.csv'));
    expect(results).toEqual([
      expect.objectContaining({ errors: 94, errorsByCode: { '500': 94 }, requests: null }),
    ]);
  });
});

describe('Locust --json (serialize_stats) of 2.12.1', () => {
  const alone = JSON.parse(localFixture('locust-2.12.1.json')) as Array<Record<string, unknown>>;
  const cluster = JSON.parse(localFixture('locust-2.12.1-2-workers.json')) as Array<
    Record<string, unknown>
  >;

  it('adds entries of the same name bucket by bucket, as the master does', () => {
    // Two runs' lists put together: each name's buckets are the sums of both.
    const both = decodeLocustJson([...alone, ...cluster]).results;
    const one = decodeLocustJson(alone).results;
    const two = decodeLocustJson(cluster).results;
    for (const name of ['Aggregated', '/delay', '/fail']) {
      const sum = new Map<number, number>();
      for (const r of [byName(one, name), byName(two, name)])
        for (const b of r.histogram ?? []) sum.set(b.fromMs, (sum.get(b.fromMs) ?? 0) + b.count);
      const merged = byName(both, name);
      expect(merged.requests).toBe(
        (byName(one, name).requests as number) + (byName(two, name).requests as number),
      );
      // The lowest bin starts at the smaller minimum; the others at their keys' ranges.
      const counts = (merged.histogram ?? []).map((b) => b.count);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(merged.requests);
      expect(counts.length).toBeLessThanOrEqual(sum.size);
    }
  });

  it('refuses buckets that do not add up to num_requests', () => {
    const broken = structuredClone(alone);
    (broken[0] as { num_requests: number }).num_requests += 1;
    expect(() => decodeLocustJson(broken)).toThrow(/response_times count/);
  });
});

describe("Locust's own pre-1.0 example files (docs/retrieving-stats.rst at 0.13.0)", () => {
  it('_requests.csv: failures apart from requests, as Locust <= 0.8 counted them', async () => {
    const decoded = await decodeResults(publicFixture('locust/docs-0.13.0-example_requests.csv'));
    expect(decoded.format).toBe('locust');
    expect(decoded.results.map((r) => [r.labels.name, r.requests, r.errors])).toEqual([
      ['/', 51, 0],
      ['/does_not_exist', 0, 56],
      ['/stats/requests', 58, 0],
      ['Total', 109, 56],
    ]);
    const total = decoded.results[3] as LoadResult;
    expect(total).toMatchObject({ achievedRps: 1.89, minMs: 2, maxMs: 6, meanMs: 3 });
    expect(total.labels.aggregated).toBe('true');
    // Median 3 of 109 timed requests: unrounded under 100 ms, printed truncated, so [3, 4).
    expect(total.percentiles).toEqual([
      { p: 50, ms: 3, exact: false, method: 'tool-histogram', lower: 3, upper: 4 },
    ]);
    // Nothing timed: no latency is stored for the failing URL.
    expect(decoded.results[1]).toMatchObject({ minMs: null, maxMs: null, percentiles: [] });
  });

  it('_distribution.csv: the percentiles, a short "N/A" row read as none', async () => {
    const decoded = await decodeResults(
      publicFixture('locust/docs-0.13.0-example_distribution.csv'),
    );
    expect(decoded.results.map((r) => [r.labels.name, r.requests, r.percentiles.length])).toEqual([
      ['GET /', 31, 11],
      ['/does_not_exist', 0, 0],
      ['GET /stats/requests', 38, 11],
      ['None Total', 69, 11],
    ]);
    const total = decoded.results[3] as LoadResult;
    expect(total.labels.aggregated).toBe('true');
    // 69 x 0.95 = 65.55, not whole: Locust's rank is the nearest; 4 stands for [4, 5).
    expect(pct(total, 95)).toMatchObject({ ms: 4, lower: 4, upper: 5 });
    // 69 x 1.0 whole but p100 is the top rank either way.
    expect(pct(total, 100)).toMatchObject({ ms: 5, lower: 5, upper: 6 });
  });
});

describe("0.13.0's own code writing its _requests.csv and _distribution.csv", () => {
  // scripts/locust-legacy-reference.py ran locust 0.13.0's stats.py on these response times.
  const samples = new Map<string, number[]>();
  for (const line of localFixture('locust-0.13.0-samples.tsv').trim().split('\n')) {
    const [method, name, ms] = line.split('\t') as [string, string, string];
    for (const key of [`${method} ${name}`, ''])
      samples.set(key, [...(samples.get(key) ?? []), Number(ms)]);
  }
  const truth = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[
      Math.min(sorted.length, Math.ceil((p / 100) * sorted.length - 1e-9)) - 1
    ] as number;
  };

  it.each([
    ['locust-0.13.0_requests.csv', (r: LoadResult) => `${r.labels.method} ${r.labels.name}`],
    ['locust-0.13.0_distribution.csv', (r: LoadResult) => r.labels.name as string],
  ])('%s: every bound holds the true nearest-rank value', async (file, keyOf) => {
    const decoded = await decodeResults(localFixture(file));
    expect(decoded.format).toBe('locust');
    expect(decoded.results).toHaveLength(3);
    let checked = 0;
    for (const r of decoded.results) {
      const values = samples.get(r.labels.aggregated ? '' : keyOf(r)) as number[];
      expect(r.requests).toBe(values.length);
      for (const q of r.percentiles) {
        const t = truth(values, q.p);
        expect(q.lower as number, `${r.labels.name} p${q.p}`).toBeLessThanOrEqual(t);
        expect(q.upper as number, `${r.labels.name} p${q.p}`).toBeGreaterThanOrEqual(t);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(3);
  });

  it('a printed percentile past the max (1300 for a 1251 ms run) is moved to the max', async () => {
    const { results } = await decodeResults(localFixture('locust-0.13.0_distribution.csv'));
    // The distribution has no max column: the bound is the key's own, [1250, 1350].
    expect(pct(results[0] as LoadResult, 100)).toMatchObject({
      ms: 1300,
      lower: 1250,
      upper: 1350,
    });
    const requests = await decodeResults(localFixture('locust-0.13.0_requests.csv'));
    // _requests.csv prints the max truncated (1251 for [1251, 1252)).
    expect(requests.results[0]?.maxMs).toBe(1251);
  });
});

describe('older Locust CSV generations, written from their upstream format strings', () => {
  // locust v0.8.1 and 0.13.0 stats.py requests_csv: '"%s","%s",%i,%i,%i,%i,%i,%i,%i,%.2f',
  // the total from aggregated_stats("Total"), method None printed "None".
  it('0.8-0.13 _requests.csv', () => {
    const text = [
      '"Method","Name","# requests","# failures","Median response time","Average response time","Min response time","Max response time","Average Content Size","Requests/s"',
      '"GET","/",1000,3,42,57,3,412,1024,98.50',
      '"None","Total",1000,3,42,57,3,412,1024,98.50',
    ].join('\n');
    const { results } = decodeLocustCsv(text);
    expect(results[1]?.labels).toEqual({
      source: 'locust _requests.csv',
      name: 'Total',
      aggregated: 'true',
    });
    // Legacy: times under 100 ms unrounded, then truncated: 42 stands for [42, 43).
    expect(results[0]).toMatchObject({
      requests: 1000,
      errors: 3,
      achievedRps: 98.5,
      percentiles: [{ p: 50, ms: 42, lower: 42, upper: 43 }],
    });
  });

  // 0.13.0 distribution_csv: '"%s",%i' then "%i" per percentile; "N/A" for no requests.
  it('0.8-0.13 _distribution.csv', async () => {
    const text = [
      '"Name","# requests","50%","66%","75%","80%","90%","95%","98%","99%","99.9%","99.99%","100%"',
      '"GET /",1001,42,51,60,66,88,120,180,250,400,412,412',
      '"Total",1001,42,51,60,66,88,120,180,250,400,412,412',
      '"GET /empty",0,"N/A","N/A","N/A","N/A","N/A","N/A","N/A","N/A","N/A","N/A","N/A"',
    ].join('\n');
    const decoded = await decodeResults(text);
    expect(decoded.format).toBe('locust');
    const [first] = decoded.results;
    expect(pct(first as LoadResult, 95)).toMatchObject({ ms: 120, lower: 115, upper: 125 });
    expect(pct(first as LoadResult, 50)).toMatchObject({ ms: 42, lower: 42, upper: 43 });
    // An entry with no requests holds no result.
    expect(decoded.results).toHaveLength(3);
    expect(decoded.results[2]?.percentiles).toEqual([]);
  });

  // 0.14.0 requests_csv (inline percentiles, "99.999" without %) and stats_history_csv.
  it('0.14 _stats.csv and _stats_history.csv', async () => {
    const stats = [
      '"Type","Name","# requests","# failures","Median response time","Average response time","Min response time","Max response time","Average Content Size","Requests/s","Requests Failed/s","50%","66%","75%","80%","90%","95%","98%","99%","99.9%","99.99%","99.999","100%"',
      '"GET","/",501,0,42,57,3,412,1024,98.50,0.00,42,51,60,66,88,120,180,250,400,412,412,412',
      '"None","Aggregated",501,0,42,57,3,412,1024,98.50,0.00,42,51,60,66,88,120,180,250,400,412,412,412',
    ].join('\n');
    const { results } = await decodeResults(stats);
    expect(results[0]?.percentiles.map((q) => q.p)).toEqual([
      50, 66, 75, 80, 90, 95, 98, 99, 99.9, 99.99, 99.999, 100,
    ]);
    // 0.14 rounds under 100 ms: 42 stands for [41.5, 42.5]; the median is cut to the min.
    expect(pct(results[0] as LoadResult, 66)).toMatchObject({ lower: 50.5, upper: 51.5 });
    expect(results[1]?.labels.aggregated).toBe('true');
    const history = [
      '"Type","Name","Timestamp","# requests","# failures","Requests/s","Requests Failed/s","Median response time","Average response time","Min response time","Max response time","Average Content Size","50%","66%","75%","80%","90%","95%","98%","99%","99.9%","99.99%","99.999","100%"',
      '"None","Aggregated","1589000000",10,0,5.00,0.00,40,41,3,90,1024,40,40,40,40,90,90,90,90,90,90,90,90',
      '"None","Aggregated","1589000001",20,1,10.00,0.00,42,45,3,95,1024,42,42,42,42,95,95,95,95,95,95,95,95',
    ].join('\n');
    const h = await decodeResults(history);
    expect(h.results).toHaveLength(1);
    expect(h.results[0]).toMatchObject({
      requests: 20,
      errors: 1,
      startedAt: '2020-05-09T04:53:20.000Z',
      percentiles: [{ p: 50, ms: 42 }],
    });
  });

  // 1.0 stats.py: the _stats.csv columns renamed ("Request Count"), still quoted by hand.
  it('1.0 _stats.csv', async () => {
    const text = [
      '"Type","Name","Request Count","Failure Count","Median Response Time","Average Response Time","Min Response Time","Max Response Time","Average Content Size","Requests/s","Failures/s","50%","66%","75%","80%","90%","95%","98%","99%","99.9%","99.99%","99.999%","100%"',
      '"","Aggregated",3,0,140,133,120,141,10,1.50,0.00,140,140,140,140,140,140,140,140,140,140,140,140',
    ].join('\n');
    const { results } = await decodeResults(text);
    // Key 140 holds [135, 145]; the max is printed truncated ("%i"), so 141 stands for [141, 142).
    expect(pct(results[0] as LoadResult, 100)).toMatchObject({ ms: 140, lower: 135, upper: 142 });
  });

  // HEAD exceptions_csv: Count, Message, Traceback (several lines, quoted), Nodes.
  it('_exceptions.csv with a multi-line traceback', async () => {
    const text =
      'Count,Message,Traceback,Nodes\r\n3,ZeroDivisionError(\'division by zero\'),"Traceback (most recent call last):\n  File ""locustfile.py"", line 9, in t\n    1/0\n",vm_1\r\n';
    expect(parseCsv(text)).toHaveLength(2);
    const { results } = await decodeResults(text);
    expect(results[0]).toMatchObject({
      errors: 3,
      errorsByCode: { "exception: ZeroDivisionError('division by zero')": 3 },
    });
  });
});

describe('what is not a Locust file', () => {
  it('says what Locust files are read when one is named and the file is not', async () => {
    const err = await rejected(() => decodeResults('a,b\n1,2\n', 'locust'));
    expect(err.problem).toBe('format_mismatch');
    expect(err.message).toContain('_stats.csv');
  });

  it("names a Locust HTML report's problem and what to send instead", async () => {
    const html = '<!DOCTYPE html>\n<html><head><title>Test Report for locustfile.py</title>';
    const err = await rejected(() => decodeResults(html));
    expect(err.problem).toBe('undetectable');
    expect(err.message).toContain('--json');
  });

  it('lists the accepted formats, Locust among them, by their format= names', async () => {
    const err = await rejected(() => decodeResults('just text'));
    expect(err.problem).toBe('undetectable');
    expect(err.message).toContain("locust (Locust's --csv files (_stats.csv");
    expect(err.message).toContain(FORMAT_HINT);
  });
});
