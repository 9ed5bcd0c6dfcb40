// Values Postgres cannot store or compute with, in every place a request carries them (path
// parameters, query strings, JSON bodies, event batches, result files): each is a 4xx naming
// the field, and no table changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHdrLog } from '../ingest/results/hdr-log.test-fixtures.ts';
import { createRun, TEST_ADMIN_TOKEN, useServer } from '../test/harness.ts';
import { scratchBackends, snapshotAll } from '../test/scratch-database.ts';

const START = Date.UTC(2026, 1, 1, 10);
const DEEP_ARRAYS = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
const DEEP_OBJECTS = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;

interface Case {
  name: string;
  method?: string;
  /** After /api/v1; {run} and {change} are filled in. */
  path: string;
  type?: string;
  body?: string | ((f: { run: string }) => string);
  field: string;
}

const log = writeHdrLog({ seed: 5, startMs: START, intervals: 2, perInterval: 5 }).text;
const logLines = log.split('\n');
const lastInterval = logLines.findLastIndex((l) => /^\d/.test(l));
/** The log with its last interval line's fields replaced. */
const logWith = (over: Record<number, string>) =>
  logLines
    .map((l, i) =>
      i === lastInterval
        ? l
            .split(',')
            .map((f, k) => over[k] ?? f)
            .join(',')
        : l,
    )
    .join('\n');
const k6Point = (time: string, value: number) =>
  `${JSON.stringify({ type: 'Point', metric: 'http_req_duration', data: { time, value, tags: { status: '200' } } })}\n`;

const cases: Case[] = [
  { name: 'a NUL in a query string', path: '/runs?mesh=a%00b', field: 'mesh' },
  { name: 'a NUL in a search', path: '/runs?q=%00', field: 'q' },
  { name: 'a NUL in a history filter', path: '/history?benchmark=%00', field: 'benchmark' },
  { name: 'a NUL in a path parameter', path: '/runs/a%00b', field: 'id' },
  { name: 'a NUL in a report slug', path: '/reports/%00', field: 'slug' },
  { name: 'a NUL in a project id', path: '/projects/%00/thresholds', field: 'id' },
  {
    name: 'a NUL in a change id',
    path: '/runs/{run}/changes/c%00/propagation',
    field: 'changeId',
  },
  { name: 'a lone surrogate in a query string', path: '/runs?q=%ED%A0%80', field: 'q' },
  { name: 'bytes that are not UTF-8 in a query', path: '/runs?mesh=%FF', field: 'mesh' },
  {
    name: 'a range of 1e308',
    path: '/runs/{run}/changes/c-1/propagation?fromMs=1e308',
    field: 'fromMs',
  },
  {
    name: 'a range of -1e308',
    path: '/runs/{run}/changes/c-1/propagation?toMs=-1e308',
    field: 'toMs',
  },
  {
    name: 'a tail threshold of 1e300',
    path: '/runs/{run}/changes/c-1/tail?thresholdMs=1e300',
    field: 'thresholdMs',
  },
  {
    name: 'a tail attribution threshold past 2^53',
    path: '/runs/{run}/changes/c-1/tail/attribution?thresholdMs=9007199254740993',
    field: 'thresholdMs',
  },
  {
    name: 'a run body nested 100,000 deep',
    method: 'POST',
    path: '/runs',
    type: 'application/json',
    body: `{"benchmark":"b","scenario":"s","mesh":{"name":"m","version":"1"},"labels":${DEEP_ARRAYS}}`,
    field: 'labels',
  },
  {
    name: 'a project body of 100,000 nested objects',
    method: 'POST',
    path: '/projects',
    type: 'application/json',
    body: DEEP_OBJECTS,
    field: 'a.a.a',
  },
  {
    name: 'an event batch line nested 100,000 deep',
    method: 'POST',
    path: '/runs/{run}/events',
    type: 'application/x-ndjson',
    body: `{"type":"change","id":"c","kind":"endpoint","target":"t","action":"add","at":"2026-02-01T10:00:00Z","attrs":${DEEP_ARRAYS}}\n`,
    field: 'attrs',
  },
  {
    name: 'a clock offsetMs of 1e308',
    method: 'POST',
    path: '/runs/{run}/events',
    type: 'application/x-ndjson',
    body: '{"type":"clock","node":"n1","at":"2026-02-01T10:00:00Z","offsetMs":1e308,"errorMs":1}\n',
    field: 'offsetMs',
  },
  {
    name: 'a clock errorMs of 1e308',
    method: 'POST',
    path: '/runs/{run}/events',
    type: 'application/x-ndjson',
    body: '{"type":"clock","node":"n1","at":"2026-02-01T10:00:00Z","offsetMs":1,"errorMs":1e308}\n',
    field: 'errorMs',
  },
  {
    name: 'an interval log StartTimestamp of 1e300',
    method: 'POST',
    path: '/runs/{run}/results?generator=g',
    type: 'text/plain',
    body: logWith({ 0: '1e300' }),
    field: 'StartTimestamp',
  },
  {
    name: 'an interval log Interval_Length of 1e300',
    method: 'POST',
    path: '/runs/{run}/results?generator=g',
    type: 'text/plain',
    body: logWith({ 1: '1e300' }),
    field: 'Interval_Length',
  },
  {
    name: 'a k6 duration of 1e300',
    method: 'POST',
    path: '/runs/{run}/results',
    type: 'application/x-ndjson',
    body: k6Point('2026-02-01T10:00:01Z', 1e300),
    field: 'data.value',
  },
  {
    name: 'connections over int4',
    method: 'POST',
    path: '/runs/{run}/results?generator=g&connections=2147483648',
    type: 'text/plain',
    body: log,
    field: 'connections',
  },
  {
    name: 'a result file count over int4',
    method: 'POST',
    path: '/runs/{run}/results',
    type: 'application/json',
    body: JSON.stringify({
      RunType: 'HTTP',
      Labels: 'x',
      StartTime: '2026-02-01T10:00:00Z',
      RequestedQPS: '1000',
      ActualQPS: 1000,
      ActualDuration: 10e9,
      NumThreads: 2147483648,
      DurationHistogram: {
        Count: 10,
        Min: 0.001,
        Max: 0.002,
        Sum: 0.015,
        Avg: 0.0015,
        StdDev: 0,
        Data: [],
        Percentiles: [{ Percentile: 50, Value: 0.0015 }],
      },
      RetCodes: { '200': 10 },
    }),
    field: 'connections',
  },
];

describe.each(scratchBackends('hostile'))('hostile values on $name', (backend) => {
  const server = useServer(backend);
  let run = '';
  beforeAll(async () => {
    run = (await createRun(server)).id;
    const batch = [
      '{"type":"change","id":"c-1","kind":"endpoint","target":"t","action":"add","at":"2026-02-01T10:00:00Z"}',
      '{"type":"observation","change":"c-1","proxy":"p1","at":"2026-02-01T10:00:00.100Z"}',
    ].join('\n');
    const posted = await server.api(`/runs/${run}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: batch,
    });
    expect(posted.status).toBeLessThan(300);
  });
  afterAll(() => undefined);

  it.each(cases)('$name is a 4xx naming $field, and changes nothing', async (c) => {
    const before = await snapshotAll(server.app.database);
    const response = await fetch(`${server.url}/api/v1${c.path.replace('{run}', run)}`, {
      method: c.method ?? 'GET',
      headers: {
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        ...(c.type ? { 'content-type': c.type } : {}),
      },
      ...(c.body !== undefined
        ? { body: typeof c.body === 'string' ? c.body : c.body({ run }) }
        : {}),
    });
    const text = await response.text();
    expect(response.status, text).toBeGreaterThanOrEqual(400);
    expect(response.status, text).toBeLessThan(500);
    const body = JSON.parse(text) as { field?: string; message: string };
    expect(`${body.field ?? ''} ${body.message}`, text).toContain(c.field);
    expect(await snapshotAll(server.app.database)).toEqual(before);
  });
});
