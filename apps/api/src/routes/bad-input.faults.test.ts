// The bad-input corpus: every write route and StatsD fed what real clients and hostile ones
// send by mistake. Each case must get the 4xx it names, a message that names the fault, and
// leave the database byte-for-byte as it was. It grows with every new ingest path.
import { createSocket } from 'node:dgram';
import { request as httpRequest } from 'node:http';
import { constants, gzipSync } from 'node:zlib';
import { type Database, openDatabase } from '@meshbench/db';
import {
  createdToken,
  otlpExportMetricsResponse,
  project as projectAnswer,
  run as runAnswer,
  statsdStats,
  threshold as thresholdAnswer,
} from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkAnswer } from '../test/answer.ts';
import { openEmbeddedCopy } from '../test/embedded-image.ts';
import { type Backend, TEST_ADMIN_TOKEN, useServer } from '../test/harness.ts';

// ---------------------------------------------------------------------------------------------
// Databases of the corpus's own, so that "unchanged" is about this suite's rows only.

let scratchCount = 0;
const corpusBackends: Backend[] = [
  { name: 'embedded', open: openEmbeddedCopy },
  ...(process.env.DATABASE_URL
    ? [
        {
          name: 'postgres' as const,
          open: async (): Promise<Database> => {
            const url = process.env.DATABASE_URL as string;
            const name = `corpus_${process.pid}_${++scratchCount}`;
            const admin = await openDatabase({ url, poolSize: 1 });
            await admin.db.execute(sql.raw(`DROP DATABASE IF EXISTS ${name}`));
            await admin.db.execute(sql.raw(`CREATE DATABASE ${name}`));
            await admin.close();
            const scratch = new URL(url);
            scratch.pathname = `/${name}`;
            const database = await openDatabase({ url: scratch.toString(), poolSize: 4 });
            const close = database.close.bind(database);
            return Object.assign(database, {
              close: async () => {
                await close();
                const cleanup = await openDatabase({ url, poolSize: 1 });
                await cleanup.db.execute(sql.raw(`DROP DATABASE IF EXISTS ${name}`));
                await cleanup.close();
              },
            });
          },
        },
      ]
    : []),
];

/**
 * Every table's rows, hashed in a stable order: equal snapshots mean nothing changed. One
 * statement for all the tables (a UNION ALL of each table's count and hash), not one a table:
 * the corpus takes a snapshot per case, and on the embedded database each statement is a
 * round trip through the wasm engine.
 */
async function snapshot(database: Database): Promise<Record<string, string>> {
  const rows = (await database.db.execute(
    sql.raw(
      `SELECT table_name FROM information_schema.tables
       WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
         AND table_name NOT IN (SELECT relname FROM pg_class WHERE relispartition) ORDER BY table_name`,
    ),
  )) as unknown as { rows: { table_name: string }[] };
  // The background worker's leases are taken on its own clock, whatever a request does:
  // CI saw one taken during a 6.7 s case.
  const tables = rows.rows.map((r) => r.table_name).filter((t) => t !== 'background_leases');
  const out: Record<string, string> = {};
  if (tables.length === 0) return out;
  const hashed = (await database.db.execute(
    sql.raw(
      tables
        .map(
          (table) =>
            `SELECT '${table}' AS table_name, count(*)::int AS n, md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS h FROM "${table}" t`,
        )
        .join('\nUNION ALL\n'),
    ),
  )) as unknown as { rows: { table_name: string; n: number; h: string }[] };
  for (const r of hashed.rows) out[r.table_name] = `${r.n}:${r.h}`;
  return out;
}

// ---------------------------------------------------------------------------------------------
// The cases.

const bombs = new Map<number, Buffer>();
/**
 * 256 MiB of one byte, gzipped: the corpus's bombs, each made once (the events, results and
 * OTLP cases on both databases share two). Run-length matching finds the only matches such a
 * run has: as small as the default strategy's (260,935 bytes), in a third of its time.
 */
function gzipBomb(byte: number): Buffer {
  let bomb = bombs.get(byte);
  if (!bomb) {
    bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024, byte), { strategy: constants.Z_RLE });
    bombs.set(byte, bomb);
  }
  return bomb;
}

const T0 = '2026-02-01T10:00:00.000Z';

interface Fixture {
  run: { id: string; slug: string };
  project: { id: string; name: string; token: string };
  /** A change already stored on the run, and the Idempotency-Key of its batch. */
  change: string;
  idempotencyKey: string;
  threshold: string;
}

interface Case {
  name: string;
  /** Path (after the origin) and request; a function of the suite's fixture. */
  request: (f: Fixture) => { path: string; init: RequestInit };
  /** The status, or the statuses either of which is right (400 or 422 for a file's content). */
  status: number | number[];
  /** What the message must say: the line, the field, the limit... */
  message: RegExp;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const NDJSON_TYPE = { 'content-type': 'application/x-ndjson' };
const auth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

const post = (
  path: string,
  body: string | Buffer,
  headers: Record<string, string> = JSON_TYPE,
) => ({
  path,
  init: { method: 'POST', headers: { ...auth, ...headers }, body },
});

const change = (over: Record<string, unknown> = {}) => ({
  type: 'change',
  id: 'c-bad',
  kind: 'endpoint',
  target: 'svc-a',
  action: 'add',
  at: T0,
  ...over,
});
const observation = (over: Record<string, unknown> = {}) => ({
  type: 'observation',
  change: 'c-bad',
  proxy: 'p-1',
  at: '2026-02-01T10:00:00.500Z',
  ...over,
});
const incident = (over: Record<string, unknown> = {}) => ({
  type: 'incident',
  kind: 'reconnect',
  from: T0,
  ...over,
});
const lifecycle = (over: Record<string, unknown> = {}) => ({
  type: 'lifecycle',
  phase: 'running',
  entity: 'alloc-1',
  at: T0,
  ...over,
});

/** A batch whose first line is good and whose line 2 carries the fault: none of it is stored. */
const eventsCase = (
  name: string,
  bad: string,
  message: RegExp,
  status = 400,
  headers: Record<string, string> = NDJSON_TYPE,
): Case => ({
  name: `events: ${name}`,
  request: (f) =>
    post(
      `/api/v1/runs/${f.run.id}/events`,
      `${JSON.stringify(change({ id: 'c-good' }))}\n${bad}\n`,
      headers,
    ),
  status,
  message,
});

// Values no string field may hold, each with the reason the message must give.
const BAD_STRINGS: [string, unknown, RegExp][] = [
  ['a NUL character', 'a\u0000b', /NUL|\\u0000|null character/i],
  ['a lone surrogate', '\ud800x', /surrogate|UTF-?8|unicode/i],
  ['a number', 42, /string/i],
  ['an object', { a: 1 }, /string/i],
  ['10,000 characters', 'x'.repeat(10_000), /too (big|long)|at most|<=/i],
];
// Timestamps that are not instants the API can store as given.
const BAD_TIMES: [string, unknown, RegExp][] = [
  ['year 0000', '0000-01-01T00:00:00Z', /year|range|0000|1970|timestamp/i],
  ['month 13', '2026-13-01T00:00:00Z', /month|date|timestamp|invalid/i],
  ['February 30', '2026-02-30T00:00:00Z', /date|timestamp|invalid|exist/i],
  ['no offset', '2026-02-01T10:00:00', /offset|RFC 3339/i],
  ['ten fractional digits', '2026-02-01T10:00:00.0000000001Z', /RFC 3339|timestamp/i],
  ['epoch milliseconds', 1769940000000, /string|timestamp/i],
  ['hour 25', '2026-02-01T25:00:00Z', /hour|time|timestamp|invalid/i],
];

const eventFieldCases: Case[] = [];
const fieldsOf: [string, (o: Record<string, unknown>) => Record<string, unknown>, string[]][] = [
  ['change', change, ['id', 'kind', 'target', 'action']],
  ['observation', observation, ['change', 'proxy', 'node', 'cause']],
  ['incident', incident, ['kind', 'node', 'proxy']],
  ['lifecycle', lifecycle, ['phase', 'entity', 'node']],
];
for (const [type, make, fields] of fieldsOf) {
  for (const field of fields) {
    for (const [what, value, reason] of BAD_STRINGS) {
      eventFieldCases.push(
        eventsCase(
          `${type}.${field} with ${what}`,
          JSON.stringify(make({ [field]: value })),
          new RegExp(`line 2[\\s\\S]*${field}|${field}[\\s\\S]*line 2`, 'i'),
        ),
      );
      void reason;
    }
  }
}
const timeFields: [string, (o: Record<string, unknown>) => Record<string, unknown>, string][] = [
  ['change', change, 'at'],
  ['observation', observation, 'at'],
  ['incident', incident, 'from'],
  ['incident', incident, 'to'],
  ['lifecycle', lifecycle, 'at'],
];
for (const [type, make, field] of timeFields) {
  for (const [what, value] of BAD_TIMES) {
    eventFieldCases.push(
      eventsCase(
        `${type}.${field} at ${what}`,
        JSON.stringify(make({ [field]: value })),
        new RegExp(`line 2[\\s\\S]*${field}|${field}[\\s\\S]*line 2`, 'i'),
      ),
    );
  }
}

const eventBodyCases: Case[] = [
  eventsCase('a line that is not JSON', '{"type":"change",', /line 2/i),
  eventsCase('a JSON array on a line', '[1,2,3]', /line 2/i),
  eventsCase('a bare number', '42', /line 2/i),
  eventsCase(
    'an unknown type',
    JSON.stringify({ type: 'telemetry', at: T0 }),
    /line 2.*type|type.*line 2/is,
  ),
  eventsCase('no type', JSON.stringify({ id: 'x', at: T0 }), /line 2.*type|type.*line 2/is),
  eventsCase(
    'an unknown field',
    JSON.stringify(change({ colour: 'red' })),
    /line 2.*colour|colour.*line 2/is,
  ),
  eventsCase(
    'a __proto__ key',
    '{"type":"change","id":"p","kind":"k","target":"t","action":"a","at":"2026-02-01T10:00:00Z","__proto__":{"polluted":1}}',
    /line 2.*__proto__|__proto__.*line 2/is,
  ),
  eventsCase(
    'a constructor key',
    JSON.stringify(change({ constructor: { prototype: 1 } })),
    /line 2.*constructor|constructor.*line 2/is,
  ),
  eventsCase(
    'attrs with a __proto__ key',
    '{"type":"observation","change":"c-good","proxy":"p","at":"2026-02-01T10:00:01Z","attrs":{"__proto__":"x"}}',
    /line 2.*(__proto__|attrs)|(__proto__|attrs).*line 2/is,
  ),
  eventsCase(
    'attrs with an object value',
    JSON.stringify(observation({ change: 'c-good', attrs: { a: { b: 1 } } })),
    /line 2.*attrs|attrs.*line 2/is,
  ),
  eventsCase(
    'attrs with a NUL key',
    JSON.stringify(observation({ change: 'c-good', attrs: { 'a\u0000': 'x' } })),
    /line 2.*attrs|attrs.*line 2/is,
  ),
  eventsCase(
    'attrs with a NUL value',
    JSON.stringify(observation({ change: 'c-good', attrs: { a: 'x\u0000' } })),
    /line 2.*attrs|attrs.*line 2/is,
  ),
  eventsCase(
    'attrs with a lone surrogate value',
    JSON.stringify(observation({ change: 'c-good', attrs: { a: '\udfff' } })),
    /line 2.*attrs|attrs.*line 2/is,
  ),
  eventsCase(
    'attrs value 1e400 (Infinity)',
    '{"type":"observation","change":"c-good","proxy":"p","at":"2026-02-01T10:00:01Z","attrs":{"a":1e400}}',
    /line 2.*(attrs|finite|Infinity)|(attrs|finite|Infinity).*line 2/is,
  ),
  eventsCase(
    'expected 1e400 (Infinity)',
    '{"type":"change","id":"e","kind":"k","target":"t","action":"a","at":"2026-02-01T10:00:00Z","expected":1e400}',
    /line 2.*expected|expected.*line 2/is,
  ),
  eventsCase(
    'expected beyond the integer column',
    JSON.stringify(change({ expected: 2 ** 31 })),
    /line 2.*expected|expected.*line 2/is,
  ),
  eventsCase(
    'expected 2^53 + 2',
    JSON.stringify(change({ expected: 2 ** 53 + 2 })),
    /line 2.*expected|expected.*line 2/is,
  ),
  eventsCase(
    'expected negative',
    JSON.stringify(change({ expected: -1 })),
    /line 2.*expected|expected.*line 2/is,
  ),
  eventsCase(
    'expected fractional',
    JSON.stringify(change({ expected: 1.5 })),
    /line 2.*expected|expected.*line 2/is,
  ),
  eventsCase(
    'expected as a string',
    JSON.stringify(change({ expected: '10' })),
    /line 2.*expected|expected.*line 2/is,
  ),
  eventsCase(
    'an incident ending before it starts',
    JSON.stringify(incident({ to: '2026-02-01T09:00:00Z' })),
    /line 2.*(to|from)|(to|from).*line 2/is,
  ),
  {
    name: 'events: invalid UTF-8 bytes on line 2',
    request: (f) =>
      post(
        `/api/v1/runs/${f.run.id}/events`,
        Buffer.concat([
          Buffer.from(`${JSON.stringify(change({ id: 'c-good' }))}\n{"type":"change","id":"`),
          Buffer.from([0xc3, 0x28, 0xff]),
          Buffer.from('","kind":"k","target":"t","action":"a","at":"2026-02-01T10:00:00Z"}\n'),
        ]),
        NDJSON_TYPE,
      ),
    status: 400,
    message: /line 2[\s\S]*UTF-?8|UTF-?8[\s\S]*line 2/i,
  },
  {
    name: 'events: a line of 2 MiB',
    request: (f) =>
      post(
        `/api/v1/runs/${f.run.id}/events`,
        `${JSON.stringify(change({ id: 'c-good' }))}\n${JSON.stringify(change({ target: 'x'.repeat(2 * 1024 * 1024) }))}\n`,
        NDJSON_TYPE,
      ),
    status: 413,
    message: /line 2|MiB|limit|too (long|large)/i,
  },
  {
    name: 'events: a gzip bomb (1 GiB of one line)',
    request: (f) =>
      post(`/api/v1/runs/${f.run.id}/events`, gzipBomb(0x61), {
        ...NDJSON_TYPE,
        'content-encoding': 'gzip',
      }),
    status: 413,
    message: /limit|too (long|large)|MiB|longer than \d+ bytes/i,
  },
  {
    name: 'events: a body that says gzip and is not',
    request: (f) =>
      post(`/api/v1/runs/${f.run.id}/events`, JSON.stringify(change()), {
        ...NDJSON_TYPE,
        'content-encoding': 'gzip',
      }),
    status: 400,
    message: /gzip|decompress/i,
  },
  {
    name: 'events: a truncated gzip body',
    request: (f) =>
      post(
        `/api/v1/runs/${f.run.id}/events`,
        gzipSync(
          Buffer.from(`${JSON.stringify(change({ id: 'c-good' }))}\n${JSON.stringify(change())}\n`),
        ).subarray(0, 30),
        { ...NDJSON_TYPE, 'content-encoding': 'gzip' },
      ),
    status: 400,
    message: /gzip|truncated|unexpected end/i,
  },
  {
    name: 'events: an encoding the API does not speak (br)',
    request: (f) =>
      post(`/api/v1/runs/${f.run.id}/events`, JSON.stringify(change()), {
        ...NDJSON_TYPE,
        'content-encoding': 'br',
      }),
    status: 415,
    message: /br|encoding/i,
  },
  {
    name: 'events: text/plain',
    request: (f) =>
      post(`/api/v1/runs/${f.run.id}/events`, JSON.stringify(change()), {
        'content-type': 'text/plain',
      }),
    status: 415,
    message: /content-type|media type|text\/plain/i,
  },
  {
    name: 'events: a JSON object where an array is expected',
    request: (f) => post(`/api/v1/runs/${f.run.id}/events`, JSON.stringify(change())),
    status: 400,
    message: /array/i,
  },
  {
    name: 'events: a JSON array with a bad second event',
    request: (f) =>
      post(
        `/api/v1/runs/${f.run.id}/events`,
        JSON.stringify([change({ id: 'c-good' }), change({ at: 'yesterday' })]),
      ),
    status: 400,
    message: /(1|2|\[1\])[\s\S]*at|at[\s\S]*(1|2)/i,
  },
  {
    name: 'events: a run that does not exist',
    request: () =>
      post(
        '/api/v1/runs/00000000-0000-4000-8000-000000000000/events',
        JSON.stringify(change()),
        NDJSON_TYPE,
      ),
    status: 404,
    message: /run/i,
  },
  {
    name: 'events: an Idempotency-Key reused with another body',
    request: (f) =>
      post(`/api/v1/runs/${f.run.id}/events`, `${JSON.stringify(change({ id: 'c-other' }))}\n`, {
        ...NDJSON_TYPE,
        'idempotency-key': f.idempotencyKey,
      }),
    status: 422,
    message: /Idempotency-Key/i,
  },
  {
    name: 'events: an Idempotency-Key of 1,000 characters',
    request: (f) =>
      post(`/api/v1/runs/${f.run.id}/events`, `${JSON.stringify(change())}\n`, {
        ...NDJSON_TYPE,
        'idempotency-key': 'k'.repeat(1000),
      }),
    status: 400,
    message: /idempotency-key/i,
  },
  {
    name: 'events: lines without a source',
    request: (f) =>
      post(
        `/api/v1/runs/${f.run.id}/events?lines=1-2`,
        `${JSON.stringify(change())}\n`,
        NDJSON_TYPE,
      ),
    status: 400,
    message: /source/i,
  },
  {
    name: 'events: lines LAST before FIRST',
    request: (f) =>
      post(
        `/api/v1/runs/${f.run.id}/events?source=abc&lines=5-2`,
        `${JSON.stringify(change())}\n`,
        NDJSON_TYPE,
      ),
    status: 400,
    message: /lines/i,
  },
  {
    name: 'events: a source with a slash',
    request: (f) =>
      post(
        `/api/v1/runs/${f.run.id}/events?source=a/b&lines=1-1`,
        `${JSON.stringify(change())}\n`,
        NDJSON_TYPE,
      ),
    status: 400,
    message: /source/i,
  },
  {
    name: 'events: lines that do not match the body',
    request: (f) =>
      post(
        `/api/v1/runs/${f.run.id}/events?source=abc&lines=1-5`,
        `${JSON.stringify(change())}\n`,
        NDJSON_TYPE,
      ),
    status: 400,
    message: /lines|line 5|holds/i,
  },
];

// ------ runs
const runBody = (over: Record<string, unknown> = {}) => ({
  benchmark: 'corpus',
  scenario: 'bad',
  mesh: { name: 'consul' },
  ...over,
});
const runCase = (name: string, body: unknown, message: RegExp, status = 400): Case => ({
  name: `runs: ${name}`,
  request: () => post('/api/v1/runs', typeof body === 'string' ? body : JSON.stringify(body)),
  status,
  message,
});
const runCases: Case[] = [
  runCase('not JSON', '{"benchmark":', /JSON/i),
  runCase('an empty body', '', /body|JSON/i),
  runCase('an array', '[]', /object/i),
  runCase('no benchmark', { scenario: 's', mesh: { name: 'consul' } }, /benchmark/),
  runCase('no mesh', { benchmark: 'b', scenario: 's' }, /mesh/),
  runCase('an unknown field', runBody({ colour: 'red' }), /colour/),
  runCase(
    'a __proto__ key',
    '{"benchmark":"b","scenario":"s","mesh":{"name":"consul"},"__proto__":{"admin":true}}',
    /__proto__/,
  ),
  runCase('a label key with a NUL', runBody({ labels: { 'a\u0000': 'x' } }), /labels/),
  runCase('a label value with a NUL', runBody({ labels: { a: 'x\u0000' } }), /labels/),
  runCase('a label value that is a number', runBody({ labels: { a: 1 } }), /labels/),
  runCase(
    'a label key of 300 characters',
    runBody({ labels: { ['k'.repeat(300)]: 'v' } }),
    /labels/,
  ),
  runCase('topology.nodes -1', runBody({ topology: { nodes: -1 } }), /topology/),
  runCase('topology.nodes 1.5', runBody({ topology: { nodes: 1.5 } }), /topology/),
  runCase(
    'topology.nodes beyond the integer column',
    runBody({ topology: { nodes: 2 ** 31 } }),
    /topology/,
  ),
  runCase(
    'topology.nodes 1e400',
    '{"benchmark":"b","scenario":"s","mesh":{"name":"consul"},"topology":{"nodes":1e400}}',
    /topology/,
  ),
  runCase('an unknown project', runBody({ project: 'no-such-project' }), /project/, 404),
  runCase(
    'finished before it started',
    runBody({ startedAt: '2026-02-01T10:00:00Z', finishedAt: '2026-02-01T09:00:00Z' }),
    /finishedAt|before/,
  ),
];
for (const field of ['benchmark', 'scenario', 'platform', 'environment']) {
  for (const [what, value] of BAD_STRINGS) {
    runCases.push(runCase(`${field} with ${what}`, runBody({ [field]: value }), new RegExp(field)));
  }
}
for (const [what, value] of BAD_STRINGS) {
  runCases.push(runCase(`mesh.name with ${what}`, runBody({ mesh: { name: value } }), /mesh/));
}
for (const [what, value] of BAD_TIMES) {
  runCases.push(runCase(`startedAt at ${what}`, runBody({ startedAt: value }), /startedAt/));
}

const patchCases: Case[] = [
  ...(
    [
      ['status running', { status: 'running' }, /status/],
      ['status unknown', { status: 'exploded' }, /status/],
      ['finishedAt year 0000', { finishedAt: '0000-01-01T00:00:00Z' }, /finishedAt/],
      ['finishedAt not a time', { finishedAt: 'soon' }, /finishedAt/],
      ['an unknown field', { benchmark: 'x' }, /benchmark/],
    ] as [string, unknown, RegExp][]
  ).map(
    ([name, body, message]): Case => ({
      name: `finish run: ${name}`,
      request: (f) => ({
        path: `/api/v1/runs/${f.run.id}`,
        init: { method: 'PATCH', headers: { ...auth, ...JSON_TYPE }, body: JSON.stringify(body) },
      }),
      status: 400,
      message,
    }),
  ),
  {
    name: 'finish run: a run that does not exist',
    request: () => ({
      path: '/api/v1/runs/00000000-0000-4000-8000-000000000000',
      init: { method: 'PATCH', headers: { ...auth, ...JSON_TYPE }, body: '{}' },
    }),
    status: 404,
    message: /run/i,
  },
];

// ------ results
const FORTIO = {
  RunType: 'HTTP',
  Labels: 'corpus',
  StartTime: T0,
  RequestedQPS: '100',
  RequestedDuration: '10s',
  ActualQPS: 99.9,
  ActualDuration: 10_000_000_000,
  NumThreads: 4,
  DurationHistogram: {
    Count: 2,
    Min: 0.001,
    Max: 0.002,
    Sum: 0.003,
    Avg: 0.0015,
    StdDev: 0.0005,
    Data: [{ Start: 0.001, End: 0.002, Percent: 100, Count: 2 }],
    Percentiles: [{ Percentile: 50, Value: 0.0015 }],
  },
  RetCodes: { '200': 2 },
};
const fortio = (over: Record<string, unknown>, histogram: Record<string, unknown> = {}) =>
  JSON.stringify({
    ...FORTIO,
    ...over,
    DurationHistogram: { ...FORTIO.DurationHistogram, ...histogram },
  });
const resultCase = (
  name: string,
  body: string | Buffer,
  message: RegExp,
  status: number | number[] = 400,
  query = '',
  headers: Record<string, string> = JSON_TYPE,
): Case => ({
  name: `results: ${name}`,
  request: (f) => post(`/api/v1/runs/${f.run.id}/results${query}`, body, headers),
  status,
  message,
});
const resultCases: Case[] = [
  resultCase('an empty body', '', /empty|body/i, 400, '', {
    'content-type': 'application/octet-stream',
  }),
  resultCase('truncated JSON', fortio({}).slice(0, 80), /JSON|format|recognis|unexpected/i),
  resultCase('JSON of no known tool', JSON.stringify({ hello: 'world' }), /format|recognis/i, 415),
  resultCase('an unknown format', fortio({}), /format/i, 400, '?format=tsung'),
  resultCase(
    'fortio with a histogram to 1e308',
    fortio({}, { Data: [{ Start: -1e308, End: 1e308, Percent: 100, Count: 2 }] }),
    /Data|Start|End|range|finite|duration|histogram.*Infinity/i,
    [400, 422],
    '?format=fortio',
  ),
  resultCase(
    'fortio with a negative count',
    fortio({}, { Count: -2 }),
    /Count/i,
    [400, 422],
    '?format=fortio',
  ),
  resultCase(
    'fortio with NaN as a string',
    fortio({ ActualQPS: 'NaN' }),
    /ActualQPS/i,
    [400, 422],
    '?format=fortio',
  ),
  resultCase(
    'fortio with Infinity (1e400)',
    fortio({}).replace('"ActualQPS":99.9', '"ActualQPS":1e400'),
    /ActualQPS|finite/i,
    [400, 422],
    '?format=fortio',
  ),
  resultCase(
    'fortio with year 0000',
    fortio({ StartTime: '0000-01-01T00:00:00Z' }),
    /StartTime|year|time/i,
    [400, 422],
    '?format=fortio',
  ),
  resultCase(
    'fortio with a NUL in its labels',
    fortio({ Labels: 'a\u0000b' }),
    /Labels|NUL/i,
    [400, 422],
    '?format=fortio',
  ),
  resultCase(
    'fortio with a lone surrogate in its labels',
    fortio({ Labels: '\ud800' }),
    /Labels|surrogate|UTF/i,
    [400, 422],
    '?format=fortio',
  ),
  resultCase(
    'fortio with a __proto__ key',
    fortio({}).replace('{"RunType"', '{"__proto__":{"x":1},"RunType"'),
    /__proto__/i,
    [400, 422],
    '?format=fortio',
  ),
  resultCase(
    'a nighthawk file that is not one',
    JSON.stringify({ results: 'no' }),
    /results|nighthawk/i,
    [400, 422],
    '?format=nighthawk',
  ),
  resultCase(
    'a k6 summary without metrics',
    JSON.stringify({ root_group: {} }),
    /metrics|k6/i,
    [400, 422],
    '?format=k6',
  ),
  resultCase(
    'a wrk2 report of garbage',
    'Running 30s test @ http://x\nnothing else',
    /wrk2|latency|Requests/i,
    [400, 422],
    '?format=wrk2',
    { 'content-type': 'text/plain' },
  ),
  resultCase(
    'an Istio CSV without a header',
    '1,2,3\n4,5,6\n',
    /header|column|csv/i,
    [400, 422],
    '?format=istio-csv',
    { 'content-type': 'text/csv' },
  ),
  resultCase(
    'YAML with an alias bomb',
    `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n`,
    /alias|YAML|format|recognis|smp/i,
    [400, 422],
    '?format=smp',
    { 'content-type': 'application/yaml' },
  ),
  resultCase(
    'invalid UTF-8 in a JSON file',
    Buffer.concat([
      Buffer.from('{"RunType":"HTTP","Labels":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]),
    /UTF-?8/i,
    400,
    '?format=fortio',
  ),
  resultCase('a gzip bomb', gzipBomb(0x20), /limit|too large|MiB|MB|over \d+ bytes/i, 413, '', {
    ...JSON_TYPE,
    'content-encoding': 'gzip',
  }),
  resultCase('a body that says gzip and is not', fortio({}), /gzip|decompress/i, 400, '', {
    ...JSON_TYPE,
    'content-encoding': 'gzip',
  }),
  {
    name: 'results: a run that does not exist',
    request: () => post('/api/v1/runs/00000000-0000-4000-8000-000000000000/results', fortio({})),
    status: 404,
    message: /run/i,
  },
];

// ------ reports, projects, tokens, thresholds
const reportCases: Case[] = [
  {
    name: 'reports: no runs',
    request: () => post('/api/v1/reports', JSON.stringify({ runs: [] })),
    status: 400,
    message: /runs/,
  },
  {
    name: 'reports: five runs',
    request: (f) => post('/api/v1/reports', JSON.stringify({ runs: Array(5).fill(f.run.id) })),
    status: 400,
    message: /runs/,
  },
  {
    name: 'reports: a run that does not exist',
    request: () => post('/api/v1/reports', JSON.stringify({ runs: ['no-such-run'] })),
    status: 404,
    message: /no-such-run|run/,
  },
  {
    name: 'reports: a title with a NUL',
    request: (f) => post('/api/v1/reports', JSON.stringify({ runs: [f.run.id], title: 'a\u0000' })),
    status: 400,
    message: /title/,
  },
  {
    name: 'reports: a title with a lone surrogate',
    request: (f) => post('/api/v1/reports', JSON.stringify({ runs: [f.run.id], title: '\udc00' })),
    status: 400,
    message: /title/,
  },
  {
    name: 'reports: a title of 1,000 characters',
    request: (f) =>
      post('/api/v1/reports', JSON.stringify({ runs: [f.run.id], title: 't'.repeat(1000) })),
    status: 400,
    message: /title/,
  },
  {
    name: 'reports: runs as a string',
    request: (f) => post('/api/v1/reports', JSON.stringify({ runs: f.run.id })),
    status: 400,
    message: /runs/,
  },
  {
    name: 'reports: deleting a report that does not exist',
    request: () => ({
      path: '/api/v1/reports/no-such-report',
      init: { method: 'DELETE', headers: auth },
    }),
    status: 404,
    message: /report/i,
  },
];
const projectCases: Case[] = [
  ...(
    [
      ['an upper-case name', { name: 'Mesh' }],
      ['a name with a NUL', { name: 'a\u0000' }],
      ['a name with a slash', { name: 'a/b' }],
      ['a name of 64 characters', { name: `a${'b'.repeat(63)}` }],
      ['an empty name', { name: '' }],
      ['an unknown visibility', { name: 'okname', visibility: 'secret' }],
      ['an unknown field', { name: 'okname', owner: 'me' }],
    ] as [string, unknown][]
  ).map(
    ([name, body]): Case => ({
      name: `projects: ${name}`,
      request: () => post('/api/v1/projects', JSON.stringify(body)),
      status: 400,
      message: /name|visibility|owner/,
    }),
  ),
  {
    name: 'projects: a name already taken',
    request: (f) => post('/api/v1/projects', JSON.stringify({ name: f.project.name })),
    status: 409,
    message: /exists|taken|already/i,
  },
  {
    name: 'tokens: an empty name',
    request: (f) => post(`/api/v1/projects/${f.project.id}/tokens`, JSON.stringify({ name: '' })),
    status: 400,
    message: /name/,
  },
  {
    name: 'tokens: a name with a NUL',
    request: (f) =>
      post(`/api/v1/projects/${f.project.id}/tokens`, JSON.stringify({ name: 'ci\u0000' })),
    status: 400,
    message: /name/,
  },
  {
    name: 'tokens: a name with a lone surrogate',
    request: (f) =>
      post(`/api/v1/projects/${f.project.id}/tokens`, JSON.stringify({ name: '\ud800' })),
    status: 400,
    message: /name/,
  },
  {
    name: 'tokens: a project that does not exist',
    request: () => post('/api/v1/projects/no-such-project/tokens', JSON.stringify({ name: 'ci' })),
    status: 404,
    message: /project/i,
  },
  {
    name: 'tokens: revoking one that does not exist',
    request: () => ({
      path: '/api/v1/tokens/00000000-0000-4000-8000-000000000000',
      init: { method: 'DELETE', headers: auth },
    }),
    status: 404,
    message: /token/i,
  },
  {
    name: 'tokens: revoking one by a non-uuid id',
    request: () => ({
      path: '/api/v1/tokens/not-a-uuid',
      init: { method: 'DELETE', headers: auth },
    }),
    status: 400,
    message: /id/i,
  },
  ...(
    [
      ['a rule that does not parse', { benchmark: 'b', rule: 'p99 <<< 5' }, /rule/],
      ['a rule on an unknown metric', { benchmark: 'b', rule: 'p42x<1000' }, /rule|metric/],
      ['a rule with a NUL', { benchmark: 'b', rule: 'p99<1000\u0000' }, /rule/],
      ['a rule with Infinity', { benchmark: 'b', rule: 'p99<Infinity' }, /rule/],
      [
        'a rule of 10,000 characters',
        { benchmark: 'b', rule: `p99<${'9'.repeat(10_000)}` },
        /rule/,
      ],
      ['an empty benchmark', { benchmark: '', rule: 'p99<1000' }, /benchmark/],
      ['a benchmark with a NUL', { benchmark: 'b\u0000', rule: 'p99<1000' }, /benchmark/],
      ['an unknown field', { benchmark: 'b', rule: 'p99<1000', severity: 'high' }, /severity/],
    ] as [string, unknown, RegExp][]
  ).map(
    ([name, body, message]): Case => ({
      name: `thresholds: ${name}`,
      request: (f) => post(`/api/v1/projects/${f.project.id}/thresholds`, JSON.stringify(body)),
      status: 400,
      message,
    }),
  ),
  {
    name: 'thresholds: deleting one that does not exist',
    request: () => ({
      path: '/api/v1/thresholds/00000000-0000-4000-8000-000000000000',
      init: { method: 'DELETE', headers: auth },
    }),
    status: 404,
    message: /threshold/i,
  },
  {
    name: 'thresholds: deleting one by a non-uuid id',
    request: () => ({ path: '/api/v1/thresholds/xyz', init: { method: 'DELETE', headers: auth } }),
    status: 400,
    message: /id/i,
  },
];

// ------ OTLP
const otlpPoint = (runId: string, metric: Record<string, unknown>) =>
  JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'meshbench.run', value: { stringValue: runId } }] },
        scopeMetrics: [{ metrics: [metric] }],
      },
    ],
  });
const NOW_NS = () => String(BigInt(Date.now()) * 1_000_000n);
const otlpCase = (
  name: string,
  body: (f: Fixture) => string | Buffer,
  message: RegExp,
  status = 400,
  headers: Record<string, string> = JSON_TYPE,
): Case => ({
  name: `otlp: ${name}`,
  request: (f) => post('/v1/metrics', body(f), headers),
  status,
  message,
});
const otlpCases: Case[] = [
  otlpCase('not JSON', () => '{"resourceMetrics":[', /JSON/i),
  otlpCase(
    'resourceMetrics as a string',
    () => JSON.stringify({ resourceMetrics: 'x' }),
    /resourceMetrics/,
  ),
  otlpCase(
    'protobuf that is not',
    () => Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]),
    /protobuf|decode|invalid|wire/i,
    400,
    { 'content-type': 'application/x-protobuf' },
  ),
  otlpCase('text/plain', () => '{}', /content-type|application\/x-protobuf/i, 415, {
    'content-type': 'text/plain',
  }),
  otlpCase('a gzip bomb', () => gzipBomb(0x20), /limit|too large|MiB|MB|over \d+ bytes/i, 413, {
    ...JSON_TYPE,
    'content-encoding': 'gzip',
  }),
  otlpCase('a body that says gzip and is not', () => '{}', /gzip|decompress/i, 400, {
    ...JSON_TYPE,
    'content-encoding': 'gzip',
  }),
  otlpCase(
    'a histogram whose counts and bounds disagree',
    (f) =>
      otlpPoint(f.run.id, {
        name: 'h',
        histogram: {
          aggregationTemporality: 1,
          dataPoints: [
            {
              startTimeUnixNano: NOW_NS(),
              timeUnixNano: NOW_NS(),
              count: '3',
              bucketCounts: ['1', '2'],
              explicitBounds: [1, 2, 3],
            },
          ],
        },
      }),
    /histogram "h" dataPoints\[0\].*(bucketCounts|explicitBounds)/,
  ),
  otlpCase(
    'a histogram with bounds out of order',
    (f) =>
      otlpPoint(f.run.id, {
        name: 'h',
        histogram: {
          aggregationTemporality: 1,
          dataPoints: [
            {
              startTimeUnixNano: NOW_NS(),
              timeUnixNano: NOW_NS(),
              count: '3',
              bucketCounts: ['1', '1', '1'],
              explicitBounds: [5, 1],
            },
          ],
        },
      }),
    /histogram "h" dataPoints\[0\].*explicitBounds/,
  ),
  otlpCase(
    'a histogram with a negative bucket count',
    (f) =>
      otlpPoint(f.run.id, {
        name: 'h',
        histogram: {
          aggregationTemporality: 1,
          dataPoints: [
            {
              startTimeUnixNano: NOW_NS(),
              timeUnixNano: NOW_NS(),
              count: '1',
              bucketCounts: ['2', '-1'],
              explicitBounds: [5],
            },
          ],
        },
      }),
    /histogram "h" dataPoints\[0\].*bucketCounts/,
  ),
  otlpCase(
    'an exponential histogram with scale 21',
    (f) =>
      otlpPoint(f.run.id, {
        name: 'e',
        exponentialHistogram: {
          aggregationTemporality: 1,
          dataPoints: [
            {
              startTimeUnixNano: NOW_NS(),
              timeUnixNano: NOW_NS(),
              count: '1',
              scale: 21,
              positive: { offset: 0, bucketCounts: ['1'] },
            },
          ],
        },
      }),
    /exponentialHistogram "e" dataPoints\[0\].*scale/,
  ),
];
// Points refused one by one: 200 with partial_success naming why, and nothing stored.
const otlpPartialCases: {
  name: string;
  metric: (t: string) => Record<string, unknown>;
  message: RegExp;
}[] = [
  {
    name: 'timeUnixNano as an object',
    metric: () => ({ name: 'x', gauge: { dataPoints: [{ timeUnixNano: { a: 1 }, asDouble: 1 }] } }),
    message: /time/i,
  },
  {
    name: 'asDouble as a word',
    metric: (t) => ({ name: 'x', gauge: { dataPoints: [{ timeUnixNano: t, asDouble: 'many' }] } }),
    message: /finite|number/i,
  },
  {
    name: 'asInt beyond int64',
    metric: (t) => ({
      name: 'x',
      gauge: { dataPoints: [{ timeUnixNano: t, asInt: '99999999999999999999999' }] },
    }),
    message: /asInt|int64/i,
  },
  {
    name: 'a negative timestamp',
    metric: () => ({ name: 'x', gauge: { dataPoints: [{ timeUnixNano: '-1000', asDouble: 1 }] } }),
    message: /time|1970/i,
  },
  {
    name: 'a time in year 10000',
    metric: () => ({
      name: 'x',
      gauge: { dataPoints: [{ timeUnixNano: '253402300800000000001', asDouble: 1 }] },
    }),
    message: /time|9999/i,
  },
  {
    name: 'a name of 2,000 bytes',
    metric: (t) => ({
      name: 'n'.repeat(2000),
      gauge: { dataPoints: [{ timeUnixNano: t, asDouble: 1 }] },
    }),
    message: /name|1024/i,
  },
  {
    name: 'an attribute value of 10,000 bytes',
    metric: (t) => ({
      name: 'x',
      gauge: {
        dataPoints: [
          {
            timeUnixNano: t,
            asDouble: 1,
            attributes: [{ key: 'k', value: { stringValue: 'v'.repeat(10_000) } }],
          },
        ],
      },
    }),
    message: /attribute|4096/i,
  },
  {
    name: 'a start after its time',
    metric: (t) => ({
      name: 'x',
      sum: {
        aggregationTemporality: 1,
        isMonotonic: true,
        dataPoints: [
          { startTimeUnixNano: String(BigInt(t) + 1_000_000_000n), timeUnixNano: t, asDouble: 1 },
        ],
      },
    }),
    message: /start/i,
  },
];

const ALL: Case[] = [
  ...eventFieldCases,
  ...eventBodyCases,
  ...runCases,
  ...patchCases,
  ...resultCases,
  ...reportCases,
  ...projectCases,
  ...otlpCases,
];

// StatsD lines that must each be counted as malformed and store nothing.
const BAD_STATSD: [string, Buffer][] = [
  ['a NUL in the name', Buffer.from('corpus.a\u0000b:1|c')],
  ['a NUL in the value', Buffer.from('corpus.a:1\u0000|c')],
  [
    'invalid UTF-8 in the name',
    Buffer.concat([Buffer.from('corpus.'), Buffer.from([0xff, 0xfe]), Buffer.from(':1|c')]),
  ],
  ['no value', Buffer.from('corpus.a:|c')],
  ['no type', Buffer.from('corpus.a:1')],
  ['an unknown type', Buffer.from('corpus.a:1|zz')],
  ['a value that is a word', Buffer.from('corpus.a:many|ms')],
  ['NaN', Buffer.from('corpus.a:NaN|g')],
  ['Infinity', Buffer.from('corpus.a:Infinity|ms')],
  ['1e400', Buffer.from('corpus.a:1e400|h')],
  ['a sample rate of 0', Buffer.from('corpus.a:1|c|@0')],
  ['a sample rate of 2', Buffer.from('corpus.a:1|c|@2')],
  ['a sample rate that is a word', Buffer.from('corpus.a:1|c|@half')],
  ['a name of 10,000 bytes', Buffer.from(`${'n'.repeat(10_000)}:1|c`)],
];

describe.each(corpusBackends)('bad input on $name', (backend) => {
  const server = useServer(
    backend,
    { MESHBENCH_STATSD_FLUSH_MS: '50', MESHBENCH_READ_CACHE_MS: '0' },
    { statsd: true },
  );
  const fixture = {} as Fixture;

  /**
   * The tables as the last case left them, when it stored nothing. The cases run one at a
   * time and each checks that it changed nothing, so its snapshot after is the next case's
   * before: one snapshot a case instead of two. The span it covers is longer (from the end of
   * the case before), so a late write is still caught, by the next case. A case that failed or
   * threw leaves none, and the next takes its own.
   */
  let unchanged: Record<string, string> | undefined;
  async function storesNothing(act: () => Promise<void>) {
    const before = unchanged ?? (await snapshot(server.app.database));
    unchanged = undefined;
    await act();
    const after = await snapshot(server.app.database);
    expect(after).toEqual(before);
    unchanged = after;
  }

  beforeAll(async () => {
    const name = `corpus-${Date.now()}`;
    const p = await server.json(
      '/projects',
      {
        method: 'POST',
        headers: JSON_TYPE,
        body: JSON.stringify({ name, visibility: 'private' }),
      },
      projectAnswer,
    );
    const t = await server.json(
      `/projects/${p.body.id}/tokens`,
      {
        method: 'POST',
        headers: JSON_TYPE,
        body: JSON.stringify({ name: 'corpus' }),
      },
      createdToken,
    );
    fixture.project = { id: p.body.id, name, token: t.body.token };
    const run = await server.json(
      '/runs',
      {
        method: 'POST',
        headers: JSON_TYPE,
        body: JSON.stringify({
          ...runBody(),
          project: p.body.id,
          startedAt: new Date(Date.now() - 3_600_000).toISOString(),
        }),
      },
      runAnswer,
    );
    fixture.run = run.body;
    fixture.change = 'c-stored';
    fixture.idempotencyKey = `key-${Date.now()}`;
    const stored = await server.json(`/runs/${run.body.id}/events`, {
      method: 'POST',
      headers: { ...NDJSON_TYPE, 'idempotency-key': fixture.idempotencyKey },
      body: `${JSON.stringify(change({ id: fixture.change }))}\n`,
    });
    expect(stored.status).toBe(200);
    const threshold = await server.json(
      `/projects/${p.body.id}/thresholds`,
      {
        method: 'POST',
        headers: JSON_TYPE,
        body: JSON.stringify({ benchmark: 'corpus', rule: 'p99<1000' }),
      },
      thresholdAnswer,
    );
    fixture.threshold = threshold.body.id;
  });

  it('holds at least 150 cases over every write route', () => {
    expect(ALL.length + otlpPartialCases.length + BAD_STATSD.length).toBeGreaterThanOrEqual(150);
  });

  it.each(ALL.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    await storesNothing(async () => {
      const { path, init } = c.request(fixture);
      const response = await fetch(`${server.url}${path}`, init);
      const text = await response.text();
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {}
      expect({ status: response.status, message }).toEqual({
        status: Array.isArray(c.status) ? expect.toBeOneOf(c.status) : c.status,
        message: expect.stringMatching(c.message),
      });
    });
  });

  it.each(otlpPartialCases.map((c) => [c.name, c] as const))(
    'otlp: a point with %s is refused by name, nothing stored',
    async (_name, c) => {
      await storesNothing(async () => {
        const response = await fetch(`${server.url}/v1/metrics`, {
          method: 'POST',
          headers: { ...auth, ...JSON_TYPE },
          body: otlpPoint(fixture.run.id, c.metric(NOW_NS())),
        });
        const body = checkAnswer(
          '/v1/metrics',
          response.status,
          await response.json(),
          otlpExportMetricsResponse,
        );
        expect(response.status).toBe(200);
        expect(Number(body.partialSuccess?.rejectedDataPoints)).toBe(1);
        expect(body.partialSuccess?.errorMessage).toMatch(c.message);
      });
    },
  );

  it('answers a request with 64 KiB of headers with 431, storing nothing', async () => {
    await storesNothing(async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const { port } = new URL(server.url);
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: `/api/v1/runs/${fixture.run.id}/events`,
            headers: { ...auth, ...NDJSON_TYPE, 'x-padding': 'p'.repeat(64 * 1024) },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(`${JSON.stringify(change())}\n`);
      });
      expect(status).toBe(431);
    });
  });

  it.each(BAD_STATSD)('statsd: %s costs only itself', async (_name, line) => {
    await storesNothing(async () => {
      const stats = async () => (await server.json('/statsd/stats', {}, statsdStats)).body;
      const malformedBefore = (await stats()).malformed;
      const socket = createSocket('udp4');
      await new Promise<void>((resolve, reject) =>
        socket.send(line, server.udpPort as number, '127.0.0.1', (e) =>
          e ? reject(e) : resolve(),
        ),
      );
      socket.close();
      for (let i = 0; i < 100 && (await stats()).malformed === malformedBefore; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await stats()).malformed).toBe(malformedBefore + 1);
      await new Promise((r) => setTimeout(r, 150)); // two flush intervals
    });
  });
});
