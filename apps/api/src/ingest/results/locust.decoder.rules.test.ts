// The rules of locust.decoder.ts one by one (issue 28): each case's expected value comes from
// what Locust writes (locust/stats.py at 407343d0, and the 0.13 / 0.14 / 1.0 generations) or
// from the values of the files the real Locust 2.12.1 wrote (fixtures/locust-2.12.1*).
import type { LoadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import {
  decodeLocustCsv,
  decodeLocustJson,
  isLocustJson,
  locustCsvKind,
  looksLikeLocustHtml,
  parseCsv,
  withLocustStep,
} from './locust.decoder.ts';
import { localFixture, thrown } from './test-fixtures.ts';
import { emptyResult } from './values.ts';

const byName = (results: LoadResult[], name: string) =>
  results.find((r) => r.labels.name === name) as LoadResult;

describe('withLocustStep: what the upload says, where the file said nothing', () => {
  it("keeps the file's users and rate, fills them in when the file has none", () => {
    const said = { ...emptyResult(), connections: 20, targetRps: 50 };
    expect(withLocustStep(said, { connections: 5, targetRps: 7 })).toMatchObject({
      connections: 20,
      targetRps: 50,
    });
    expect(withLocustStep(emptyResult(), { connections: 5, targetRps: 7 })).toMatchObject({
      connections: 5,
      targetRps: 7,
    });
    expect(withLocustStep(emptyResult(), {})).toMatchObject({ connections: null, targetRps: null });
  });

  it("takes the upload's mode (Locust's files name none), else the result's", () => {
    expect(withLocustStep(emptyResult(), { mode: 'closed' }).mode).toBe('closed');
    const r = { ...emptyResult(), mode: 'open' };
    expect(withLocustStep(r, {}).mode).toBe('open');
  });
});

describe('locustCsvKind: the header tells the file', () => {
  it('needs every column of a kind', () => {
    expect(locustCsvKind('Type,Name,Request Count,Failure Count')).toBe('stats');
    // Spaces around the names (a hand-edited header) do not hide them.
    expect(locustCsvKind('Type, Name , Request Count')).toBe('stats');
    // A Timestamp column alone does not make a history: its count columns do.
    expect(locustCsvKind('Timestamp,Type,Name,Request Count')).toBe('stats');
    expect(locustCsvKind('Timestamp,Name,Total Request Count')).toBe('stats_history');
    expect(locustCsvKind('Timestamp,Name,Foo')).toBeNull();
    expect(locustCsvKind('Type,Name,Foo')).toBeNull();
  });

  it('a _distribution.csv: Name, # requests, then percentile columns only', () => {
    expect(locustCsvKind('Name,# requests,50%,99.9')).toBe('distribution');
    expect(locustCsvKind('Name,# requests,50%,Max')).toBeNull();
    expect(locustCsvKind('Name,# requests,50%,a50%')).toBeNull();
    expect(locustCsvKind('Name,# requests,50%,50%b')).toBeNull();
    expect(locustCsvKind('Name,Count,50%')).toBeNull();
    expect(locustCsvKind('Label,# requests,50%')).toBeNull();
  });

  it('a header with a quote that never closes is no Locust header, not an error', () => {
    expect(locustCsvKind('"Type,Name,Request Count')).toBeNull();
    expect(locustCsvKind('')).toBeNull();
  });

  it('an HTML report is one page naming Locust', () => {
    expect(looksLikeLocustHtml('<!DOCTYPE html><HTML><title>Locust</title>')).toBe(true);
    expect(looksLikeLocustHtml('<html><title>k6</title>')).toBe(false);
    expect(looksLikeLocustHtml('locust,stats')).toBe(false);
  });
});

describe('isLocustJson: a list of stats entries', () => {
  const entry = { name: '/a', num_requests: 0, num_failures: 0, response_times: {} };
  it('every entry needs a name, num_requests, num_failures and response_times', () => {
    expect(isLocustJson([entry])).toBe(true);
    expect(isLocustJson([])).toBe(false);
    expect(isLocustJson(entry)).toBe(false);
    expect(isLocustJson([entry, 'x'])).toBe(false);
    for (const key of ['name', 'num_requests', 'num_failures', 'response_times']) {
      const { [key as keyof typeof entry]: _gone, ...rest } = entry;
      expect(isLocustJson([entry, rest]), key).toBe(false);
    }
    expect(isLocustJson([{ ...entry, name: 3 }])).toBe(false);
    expect(isLocustJson([{ ...entry, response_times: 'x' }])).toBe(false);
  });
});

describe('parseCsv: RFC 4180 as Python csv writes it', () => {
  const cells = (text: string) => parseCsv(text).map((r) => [r.line, ...r.cells]);

  it('doubled quotes, commas and line breaks inside quotes; lines counted through them', () => {
    expect(cells('"a""b",c\n"x\ny",z\nq')).toEqual([
      [1, 'a"b', 'c'],
      [2, 'x\ny', 'z'],
      [4, 'q'],
    ]);
  });

  it('CR, LF and CRLF end a record; blank lines hold none', () => {
    expect(cells('a\rb\r\nc\n\nd')).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [5, 'd'],
    ]);
    expect(cells('')).toEqual([]);
    expect(cells('\nx')).toEqual([[2, 'x']]);
  });

  it('empty cells are cells: a lone comma, an empty quoted field, a trailing comma', () => {
    expect(cells(',\n""\nx,')).toEqual([
      [1, '', ''],
      [2, ''],
      [3, 'x', ''],
    ]);
    expect(cells('""')).toEqual([[1, '']]);
  });

  it('refuses a quoted field that never closes, naming the line it opened on', () => {
    const err = thrown(() => parseCsv('a\n"b\nc'));
    expect(err).toMatchObject({ problem: 'truncated', line: 2 });
    expect(err.message).toBe('a quoted field opened on line 2 never closes');
  });
});

const STATS_1_2 =
  'Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,Min Response Time,Max Response Time,Average Content Size,Requests/s,Failures/s,50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,100%';

describe('_stats.csv rows', () => {
  it('an entry with no requests: no extremes, no mean, no percentiles (Locust prints 0 and N/A)', () => {
    const text = `${STATS_1_2}\nGET,/none,0,0,0,0,0,0,0,0.0,0.0,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A\n`;
    const [r] = decodeLocustCsv(text).results;
    expect(r).toMatchObject({
      requests: 0,
      errors: 0,
      minMs: null,
      maxMs: null,
      meanMs: null,
      percentiles: [],
    });
  });

  it('an N/A or empty cell is no value; a short row reads its missing cells as empty', () => {
    const text = `${STATS_1_2}\nGET,/a,3,0,N/A,5.0,4.0,6.0,0,1.0,0.0,5,N/A,,5,5,5,5,5,5,5,6\nGET,/b,3,,,5.0`;
    const [a, b] = decodeLocustCsv(text).results;
    expect(a?.percentiles.map((q) => q.p)).toEqual([50, 80, 90, 95, 98, 99, 99.9, 99.99, 100]);
    expect(b).toMatchObject({ requests: 3, errors: null, meanMs: 5, minMs: null, percentiles: [] });
  });

  it('no request count: no percentiles', () => {
    const text = `${STATS_1_2}\nGET,/a,,0,5,5.0,4.0,6.0,0,1.0,0.0,5,5,5,5,5,5,5,5,5,5,6`;
    expect(decodeLocustCsv(text).results[0]?.percentiles).toEqual([]);
  });

  it('names the column and line of a value that is no number', () => {
    const bad = thrown(() =>
      decodeLocustCsv(`${STATS_1_2}\nGET,/a,3,0,5,5.0,4.0,6.0,0,1.0\nGET,/b,3,0,5,abc,4,6,0,1`),
    );
    expect(bad).toMatchObject({ field: 'Average Response Time', line: 3 });
    const count = thrown(() => decodeLocustCsv(`${STATS_1_2}\nGET,/a,1.5,0`));
    expect(count).toMatchObject({ field: 'Request Count', line: 2 });
    expect(thrown(() => decodeLocustCsv('a,b\n1,2'))).toMatchObject({
      problem: 'format_mismatch',
      line: 1,
    });
  });

  it('the first of two columns of one name is read; cells are trimmed', () => {
    const text = 'Type,Name,Request Count,Request Count\nGET, /a ,5,7';
    const [r] = decodeLocustCsv(text).results;
    expect(r?.requests).toBe(5);
    expect(r?.labels.name).toBe('/a');
  });

  it('labels: no name when empty, the total only when it has no method', () => {
    const text = 'Type,Name,Request Count\nGET,,1\nGET,Aggregated,2\n,Aggregated,3\nNone,Total,4';
    expect(decodeLocustCsv(text).results.map((r) => r.labels)).toEqual([
      { source: 'locust _stats.csv', method: 'GET' },
      { source: 'locust _stats.csv', method: 'GET', name: 'Aggregated' },
      { source: 'locust _stats.csv', name: 'Aggregated', aggregated: 'true' },
      { source: 'locust _stats.csv', name: 'Total', aggregated: 'true' },
    ]);
  });

  it('a quoted name in an unquoted (csv.writer) file is no hand-written "%i" file', () => {
    // 1.2 on writes floats as they are: a max of 95 is 95, so the median's bound stops there.
    const text = `${STATS_1_2}\nGET,"/a,b",3,0,95,95.0,95,95,0,1.0,0.0`;
    expect(decodeLocustCsv(text).results[0]?.percentiles[0]).toMatchObject({ ms: 95, upper: 95 });
    // Up to 1.0 "%i" truncated the max: 95 stands for [95, 96), the key 95 for [94.5, 95.5].
    const quoted = `"Type","Name","Request Count","Failure Count","Median Response Time","Max Response Time"\n"GET","/a",3,0,95,95`;
    expect(decodeLocustCsv(quoted).results[0]?.percentiles[0]).toMatchObject({
      ms: 95,
      upper: 95.5,
    });
    expect(decodeLocustCsv(`  ${quoted}`).results[0]?.percentiles[0]).toMatchObject({
      upper: 95.5,
    });
  });

  it("0.14's Requests Failed/s is named among the columns not mapped", () => {
    const text = '"Type","Name","# requests","Requests Failed/s"\n"GET","/",1,0.00';
    expect(decodeLocustCsv(text).unmapped).toEqual(['Requests Failed/s']);
  });
});

const HISTORY_0_14 =
  '"Type","Name","Timestamp","# requests","# failures","Requests/s","Requests Failed/s","Median response time","Average response time","Min response time","Max response time","Average Content Size"';

describe('_stats_history.csv', () => {
  const fixture = decodeLocustCsv(localFixture('locust-2.12.1_stats_history.csv'));

  it("each entry's last row gives its cumulative totals (the Total columns)", () => {
    // The last Aggregated row: 702,94,72,78.85454391026131,0.7771339999180782,362.72047600004953.
    const total = byName(fixture.results, 'Aggregated');
    expect(total).toMatchObject({
      requests: 702,
      errors: 94,
      meanMs: 78.85454391026131,
      minMs: 0.7771339999180782,
      maxMs: 362.72047600004953,
    });
    expect(total.labels).toMatchObject({
      source: 'locust _stats_history.csv',
      users: '20',
      // Its rows run from 1795764430 to 1795764435.
      historySeconds: '5',
    });
    const delay = byName(fixture.results, '/delay');
    // /delay's first row is at 1795764431, its last at 1795764435.
    expect(delay.startedAt).toBe(new Date(1795764431 * 1000).toISOString());
    expect(delay.labels.historySeconds).toBe('4');
    expect(delay.labels.method).toBe('GET');
  });

  it('0.14: the cumulative columns named as in _stats.csv, no users, "%i" integers', () => {
    const text = [
      HISTORY_0_14,
      '"GET","/a","1589000000",10,0,5.00,0.00,40,41,3,90,1024',
      '"POST","/a","1589000001",20,1,10.00,0.00,95,45,3,95,1024',
    ].join('\n');
    const { results, unmapped } = decodeLocustCsv(text);
    expect(results.map((r) => r.labels.method)).toEqual(['GET', 'POST']);
    const post = results[1] as LoadResult;
    expect(post).toMatchObject({ requests: 20, errors: 1, meanMs: 45, minMs: 3, maxMs: 95 });
    expect(post.labels.users).toBeUndefined();
    expect(post.connections).toBeNull();
    // A max of 95 printed "%i" stands for [95, 96): the median key 95 keeps its [94.5, 95.5].
    expect(post.percentiles).toEqual([
      { p: 50, ms: 95, exact: false, method: 'tool-histogram', lower: 94.5, upper: 95.5 },
    ]);
    expect(unmapped).toEqual([
      'Requests/s (a trailing window)',
      'Requests Failed/s (a trailing window)',
      'Average Content Size',
    ]);
  });

  it('an entry whose last row has no requests has no latency', () => {
    const text =
      'Timestamp,User Count,Type,Name,Total Request Count,Total Median Response Time,Total Min Response Time,Total Max Response Time,Total Average Response Time\n1795764430,0,,Aggregated,0,0,0,0,0.0';
    const [r] = decodeLocustCsv(text).results;
    expect(r).toMatchObject({ requests: 0, minMs: null, maxMs: null, meanMs: null });
    expect(r?.percentiles).toEqual([]);
    expect(r?.labels.users).toBeUndefined();
  });

  it('unquoted (1.2 on): the max is exact, so the median bound stops at it', () => {
    const text =
      'Timestamp,User Count,Type,Name,Total Request Count,Total Median Response Time,Total Max Response Time\n1795764430,5,GET,/a,3,95,95';
    expect(decodeLocustCsv(text).results[0]?.percentiles[0]).toMatchObject({ upper: 95 });
    const noMax =
      'Timestamp,User Count,Type,Name,Total Request Count,Total Median Response Time\n1795764430,5,GET,/a,3,95';
    expect(decodeLocustCsv(noMax).results[0]?.percentiles[0]).toMatchObject({ upper: 95.5 });
  });

  it('users: one count is the concurrency; several are listed, no concurrency', () => {
    const head = 'Timestamp,User Count,Type,Name,Total Request Count';
    const one = decodeLocustCsv(`${head}\n1795764430,0,GET,/a,0\n1795764431,7,GET,/a,3`);
    expect(one.results[0]).toMatchObject({ connections: 7, labels: { users: '7' } });
    const ramp = decodeLocustCsv(`${head}\n1795764430,10,GET,/a,1\n1795764431,20,GET,/a,3`);
    expect(ramp.results[0]?.connections).toBeNull();
    expect(ramp.results[0]?.labels.users).toBe('10 20');
    expect(thrown(() => decodeLocustCsv(`${head}\n1795764430,1.5,GET,/a,1`))).toMatchObject({
      field: 'User Count',
      line: 2,
    });
  });

  it('no percentile or content-size column: none named as unmapped', () => {
    const head = 'Timestamp,Type,Name,Total Request Count';
    expect(decodeLocustCsv(`${head}\n1795764430,GET,/a,1`).unmapped).toEqual([]);
  });

  it('a start is placed only when it reads as epoch seconds (up to 2^40)', () => {
    const head = 'Timestamp,Type,Name,Total Request Count';
    const at = (ts: number) => decodeLocustCsv(`${head}\n${ts},GET,/a,1`).results[0]?.startedAt;
    expect(at(2 ** 40)).toBe(new Date(2 ** 40 * 1000).toISOString());
    expect(at(2 ** 40 + 1)).toBeNull();
  });
});

describe('_failures.csv and _exceptions.csv', () => {
  const FAILURES = 'Method,Name,Error,Occurrences';

  it('one result per method and name, failures summed by kind', () => {
    const text = [
      FAILURES,
      'GET,/a,"HTTPError(\'404 Client Error: Not Found for url: /a\')",3',
      'GET,/a,"ConnectionRefusedError(111, \'Connection refused\')",2',
      "POST,/a,HTTPError('500 Server Error: Internal Server Error for url: /a'),1",
      "GET,/a,HTTPError('502 Server Error: Bad Gateway for url: /a'),0",
    ].join('\n');
    const { results } = decodeLocustCsv(text);
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({
      labels: { source: 'locust _failures.csv', method: 'GET', name: '/a' },
      errors: 5,
    });
    expect(results[0]?.errorsByCode).toEqual({
      '404': 3,
      "ConnectionRefusedError(111, 'Connection refused')": 2,
    });
    expect(results[1]).toMatchObject({ errors: 1, errorsByCode: { '500': 1 } });
  });

  it('a failure text of more than 200 characters is cut to 200 with an ellipsis', () => {
    const long = 'x'.repeat(201);
    const exact = 'y'.repeat(200);
    const { results } = decodeLocustCsv(`${FAILURES}\nGET,/a,${long},1\nGET,/a,${exact},1`);
    expect(Object.keys(results[0]?.errorsByCode ?? {})).toEqual([`${'x'.repeat(199)}…`, exact]);
  });

  it('exceptions: the first line of each message, cut at 180 characters', () => {
    const long = 'E'.repeat(181);
    const exact = 'F'.repeat(180);
    const text = `Count,Message,Traceback,Nodes\n2,"${long}\nmore",tb,w1\n1,${exact},tb,w1\n0,Z,tb,w1`;
    const [r] = decodeLocustCsv(text).results;
    expect(r?.labels).toEqual({ source: 'locust _exceptions.csv' });
    expect(r?.errors).toBe(3);
    expect(r?.errorsByCode).toEqual({
      [`exception: ${'E'.repeat(179)}…`]: 2,
      [`exception: ${exact}`]: 1,
    });
  });

  it('a file of the header alone holds no result', () => {
    expect(decodeLocustCsv('Count,Message,Traceback,Nodes\n').results).toEqual([]);
    expect(decodeLocustCsv(`${FAILURES}\n`).results).toEqual([]);
  });
});

describe('--json entries', () => {
  const alone = JSON.parse(localFixture('locust-2.12.1.json')) as Array<Record<string, unknown>>;
  const entry = (over: Record<string, unknown>) => ({
    name: '/a',
    method: 'GET',
    num_requests: 2,
    num_none_requests: 0,
    num_failures: 0,
    total_response_time: 20,
    min_response_time: 9,
    max_response_time: 11,
    start_time: 100,
    last_request_timestamp: 110,
    response_times: { '9': 1, '11': 1 },
    ...over,
  });

  it("reads each entry's figures as Locust's StatsEntry holds them", () => {
    const { results, unmapped } = decodeLocustJson(alone);
    const fail = alone.find((e) => e.name === '/fail') as Record<string, number>;
    const r = byName(results, '/fail');
    const span = (fail.last_request_timestamp as number) - (fail.start_time as number);
    expect(r).toMatchObject({
      labels: { source: 'locust --json', name: '/fail', method: 'GET' },
      requests: fail.num_requests,
      errors: fail.num_failures,
      minMs: fail.min_response_time,
      maxMs: fail.max_response_time,
      meanMs: (fail.total_response_time as number) / (fail.num_requests as number),
      durationMs: span * 1000,
      achievedRps: (fail.num_requests as number) / span,
      startedAt: new Date((fail.start_time as number) * 1000).toISOString(),
    });
    expect(r.labels.aggregated).toBeUndefined();
    expect(results[0]?.labels).toEqual({
      source: 'locust --json',
      name: 'Aggregated',
      aggregated: 'true',
    });
    expect([...unmapped].sort()).toEqual([
      'num_fail_per_sec',
      'num_reqs_per_sec',
      'total_content_length',
    ]);
  });

  it('the total adds counts and keeps the extremes and the widest span (StatsEntry.extend)', () => {
    const { results } = decodeLocustJson([
      entry({ name: '/a', num_failures: 1, start_time: 100, last_request_timestamp: 110 }),
      // No timed request: no min, no times (Locust's None).
      entry({
        name: '/b',
        num_requests: 1,
        num_none_requests: 1,
        num_failures: 1,
        total_response_time: 0,
        min_response_time: null,
        max_response_time: 0,
        start_time: null,
        last_request_timestamp: null,
        response_times: {},
      }),
      entry({
        name: '/c',
        min_response_time: 4,
        max_response_time: 30,
        total_response_time: 34,
        start_time: 90,
        last_request_timestamp: 105,
        response_times: { '4': 1, '30': 1 },
      }),
      entry({ name: '/c', start_time: 95, last_request_timestamp: 120 }),
    ]);
    const total = results[0] as LoadResult;
    expect(total).toMatchObject({
      requests: 7,
      errors: 2,
      minMs: 4,
      maxMs: 30,
      // 20 + 0 + 34 + 20 ms over 6 timed requests.
      meanMs: 74 / 6,
      durationMs: 30_000,
      achievedRps: 7 / 30,
    });
    const c = byName(results, '/c');
    expect(c).toMatchObject({ requests: 4, minMs: 4, maxMs: 30, meanMs: 54 / 4 });
    expect(c).toMatchObject({ durationMs: 30_000, startedAt: new Date(90_000).toISOString() });
    // Nothing timed: no latency at all.
    expect(byName(results, '/b')).toMatchObject({
      requests: 1,
      minMs: null,
      maxMs: null,
      meanMs: null,
      histogram: null,
      percentiles: [],
      durationMs: null,
    });
  });

  it('the total takes a start or a minimum that only a later entry has', () => {
    const none = { min_response_time: null, start_time: null, last_request_timestamp: null };
    const { results } = decodeLocustJson([
      entry({ name: '/b', num_requests: 1, num_none_requests: 1, response_times: {}, ...none }),
      entry({ name: '/a', min_response_time: 9 }),
    ]);
    expect(results[0]).toMatchObject({ minMs: 9, durationMs: 10_000 });
  });

  it('entries of one name and another method are apart; an empty method is none', () => {
    const { results } = decodeLocustJson([
      entry({ method: 'GET' }),
      entry({ method: 'POST' }),
      entry({ method: '' }),
      entry({ method: null }),
    ]);
    expect(results.map((r) => r.labels.method)).toEqual([undefined, 'GET', 'POST', undefined]);
    expect(results[3]?.requests).toBe(4);
  });

  it('num_none_requests are requests with no time: counted, not timed', () => {
    const [total] = decodeLocustJson([entry({ num_requests: 3, num_none_requests: 1 })]).results;
    expect(total).toMatchObject({ requests: 3, meanMs: 10 });
    const err = thrown(() => decodeLocustJson([entry({ num_requests: 4, num_none_requests: 1 })]));
    expect(err).toMatchObject({ problem: 'invalid_histogram', field: '[0].response_times' });
    expect(err.message).toBe(
      '[0] (/a): response_times count 2 requests and num_none_requests 1, but num_requests is 4',
    );
    expect(thrown(() => decodeLocustJson([entry({ num_requests: 3 })])).message).toBe(
      '[0] (/a): response_times count 2 requests, but num_requests is 3',
    );
  });

  it('a bucket with no count is skipped', () => {
    const [total] = decodeLocustJson([
      entry({ response_times: { '9': 1, '11': 1, '12': null } }),
    ]).results;
    expect(total?.histogram?.map((b) => b.count)).toEqual([1, 1]);
  });

  it('names the entry and field of a bad value', () => {
    const fields = [
      'num_requests',
      'num_none_requests',
      'num_failures',
      'total_response_time',
      'min_response_time',
      'max_response_time',
      'start_time',
      'last_request_timestamp',
    ];
    for (const f of fields) {
      const err = thrown(() => decodeLocustJson([entry({}), entry({ [f]: -1 })]));
      expect(err.field, f).toBe(`[1].${f}`);
    }
    expect(thrown(() => decodeLocustJson([entry({ response_times: { x: 1 } })])).field).toBe(
      '[0].response_times.x',
    );
    expect(thrown(() => decodeLocustJson([entry({ response_times: { '9': -1 } })])).field).toBe(
      '[0].response_times.9',
    );
    expect(thrown(() => decodeLocustJson({ stats: [] }))).toMatchObject({
      problem: 'format_mismatch',
    });
  });

  it('no span when the last request is not after the start; no date past 2^40 s', () => {
    const same = decodeLocustJson([entry({ last_request_timestamp: 100 })]).results[1];
    expect(same).toMatchObject({ durationMs: null, achievedRps: null, startedAt: null });
    const before = decodeLocustJson([entry({ last_request_timestamp: 99 })]).results[1];
    expect(before?.durationMs).toBeNull();
    const noLast = decodeLocustJson([entry({ last_request_timestamp: null })]).results[1];
    expect(noLast?.durationMs).toBeNull();
    const noStart = decodeLocustJson([entry({ start_time: null })]).results[1];
    expect(noStart?.durationMs).toBeNull();
    const edge = decodeLocustJson([
      entry({ start_time: 2 ** 40, last_request_timestamp: 2 ** 40 + 2 }),
    ]).results[1];
    expect(edge).toMatchObject({ durationMs: 2000, achievedRps: 1 });
    expect(edge?.startedAt).toBe(new Date(2 ** 40 * 1000).toISOString());
    const far = decodeLocustJson([
      entry({ start_time: 2 ** 40 + 2, last_request_timestamp: 2 ** 40 + 4 }),
    ]).results[1];
    expect(far).toMatchObject({ durationMs: 2000, startedAt: null });
  });

  it('an entry with no requests has no latency', () => {
    const r = decodeLocustJson([entry({ num_requests: 0, response_times: {} })]).results[1];
    expect(r).toMatchObject({ requests: 0, meanMs: null, minMs: null, histogram: null });
  });

  it('refuses more buckets than a result may hold (1000)', () => {
    const times = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [String(1000 + i * 10), 1]));
    const at = (n: number) =>
      entry({
        num_requests: n,
        min_response_time: 1000,
        max_response_time: 1000 + (n - 1) * 10,
        response_times: times(n),
      });
    expect(decodeLocustJson([at(1000)]).results[1]?.histogram).toHaveLength(1000);
    const err = thrown(() => decodeLocustJson([at(1001)]));
    expect(err.problem).toBe('too_large');
    expect(err.message).toBe(
      'Aggregated: 1001 response-time buckets, more than the 1000 a result may hold',
    );
  });
});
