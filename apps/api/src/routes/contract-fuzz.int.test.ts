// The contract fuzzer: walks the committed OpenAPI document (docs/openapi.json) and, for every
// route and every path and query parameter, sends valid, boundary and hostile values (each
// parameter's schema's own bounds and one past them, ±1e308, 1e300, NaN, Infinity, NUL, lone
// surrogates, bytes that are not UTF-8, over-long text), with fast-check adding seeded random
// ones; every route with a body gets hostile bodies (100,000-deep nesting, NUL, lone
// surrogates, 1e400). Each answer must be below 500; a 400 or 422 must name the parameter
// (its `field`, or its name in the message); a refused write must leave every table as it was.
// Seeded and bounded: the same cases on every run, a sample of 800 of them unless
// MESHBENCH_FUZZ_CASES says another count or `all`.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { writeHdrLog } from '../ingest/results/hdr-log.test-fixtures.ts';
import { createRun, jsonBody, TEST_ADMIN_TOKEN, useServer } from '../test/harness.ts';
import { scratchBackends, snapshotAll } from '../test/scratch-database.ts';

interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema?: {
    type?: string;
    enum?: unknown[];
    minimum?: number;
    maximum?: number;
    exclusiveMinimum?: number;
    exclusiveMaximum?: number;
    maxLength?: number;
    minLength?: number;
    format?: string;
  };
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, unknown> };
}

const spec = JSON.parse(
  readFileSync(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8'),
) as { paths: Record<string, Record<string, Operation>> };

const SEED = 26;
const RANDOM_RUNS = 3;
const MAX_CASES =
  process.env.MESHBENCH_FUZZ_CASES === 'all'
    ? Number.POSITIVE_INFINITY
    : Number(process.env.MESHBENCH_FUZZ_CASES ?? 800);

/** A value as it goes on the wire (already percent-encoded) and as a label for failures. */
interface Wire {
  label: string;
  encoded: string;
}
const plain = (s: string): Wire => ({ label: JSON.stringify(s), encoded: encodeURIComponent(s) });
const raw = (label: string, encoded: string): Wire => ({ label, encoded });

/** What no text parameter may carry, and the edges of text. */
const TEXT_HOSTILE: Wire[] = [
  plain('\u0000'),
  plain('a\u0000b'),
  raw('NUL %00', '%00'),
  raw('lone surrogate (CESU bytes)', '%ED%A0%80'),
  raw('lone surrogate (escape)', '%5Cud800'),
  raw('not UTF-8', '%FF%FE'),
  raw('a bare %', '%'),
  plain(''),
  plain(' '),
  plain('../../etc/passwd'),
  plain('x'.repeat(5000)),
  plain('é😀'),
];
/** Numbers past what Postgres or a double holds, and the API's own bound (1e12). */
const NUMBER_HOSTILE: Wire[] = [
  plain('1e308'),
  plain('-1e308'),
  plain('1e300'),
  plain('1e999'),
  plain('NaN'),
  plain('Infinity'),
  plain('-Infinity'),
  plain('0x10'),
  plain('2147483648'),
  plain('9007199254740993'),
  plain('1000000000000'),
  plain('1000000000001'),
  plain('-1000000000001'),
  plain('1.5'),
  plain('-0'),
  plain(''),
  raw('NUL %00', '%00'),
];
/** Instants at and past the edges of the range the API takes. */
const TIME_HOSTILE: Wire[] = [
  plain('0000-01-01T00:00:00Z'),
  plain('0001-01-01T00:00:00Z'),
  plain('1969-12-31T23:59:59.999999Z'),
  plain('1970-01-01T00:00:00Z'),
  plain('2255-06-05T23:47:34.740991Z'),
  plain('2255-06-05T23:47:34.740992Z'),
  plain('9999-12-31T23:59:59.999999Z'),
  plain('+275760-09-13T00:00:00Z'),
];

function hostile(p: Parameter): Wire[] {
  const type = p.schema?.type;
  if (type === 'integer' || type === 'number') return NUMBER_HOSTILE;
  if (p.schema?.format === 'date-time') return [...TEXT_HOSTILE, ...TIME_HOSTILE];
  return TEXT_HOSTILE;
}

function boundaries(p: Parameter): Wire[] {
  const s = p.schema ?? {};
  const out: Wire[] = [];
  for (const e of s.enum ?? []) out.push(plain(String(e)));
  for (const n of [s.minimum, s.maximum, s.exclusiveMinimum, s.exclusiveMaximum]) {
    if (typeof n === 'number') {
      for (const d of s.type === 'integer' ? [-1, 0, 1] : [-0.5, 0, 0.5])
        out.push(plain(String(n + d)));
    }
  }
  if (typeof s.maxLength === 'number') {
    out.push(plain('x'.repeat(s.maxLength)), plain('x'.repeat(s.maxLength + 1)));
  }
  return out;
}

/** Random values of a parameter's type: fast-check, seeded. */
function randomValues(p: Parameter, seed: number): Wire[] {
  const s = p.schema ?? {};
  const arb: fc.Arbitrary<string> =
    s.type === 'integer'
      ? fc.integer({ min: -(2 ** 40), max: 2 ** 40 }).map(String)
      : s.type === 'number'
        ? fc.double({ noNaN: false }).map(String)
        : s.enum
          ? fc.constantFrom(...s.enum.map(String))
          : fc.string({ unit: 'binary', maxLength: 40 });
  return fc.sample(arb, { seed, numRuns: RANDOM_RUNS }).map((v) => {
    try {
      return plain(v);
    } catch {
      // A lone surrogate encodeURIComponent refuses: its generalized UTF-8 bytes.
      return raw(
        `${JSON.stringify(v)} (generalized UTF-8)`,
        `${encodeURIComponent(v.replace(/[\uD800-\uDFFF]/g, ''))}%ED%A0%80`,
      );
    }
  });
}

/** Hostile bodies for a route that takes one, by content type. */
const DEEP = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
const JSON_BODIES: [string, string][] = [
  ['100,000-deep arrays', DEEP],
  ['100,000-deep objects', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`],
  ['a NUL in a string', '{"name":"a\\u0000b"}'],
  ['a lone surrogate', '{"name":"\\ud800"}'],
  ['a lone surrogate key', '{"\\udc00":1}'],
  ['1e400', '{"value":1e400}'],
  ['a number past int8', '{"limit":99999999999999999999999}'],
  ['an empty object', '{}'],
  ['not JSON', '{"a":'],
  ['not UTF-8', '\u00ff'],
];
const TEXT_BODIES: [string, string][] = [
  ['a NUL', 'a\u0000b\n'],
  ['a lone surrogate escape', '{"type":"change","id":"\\ud800"}\n'],
  ['100,000-deep arrays', `${DEEP}\n`],
  ['1e400', '{"type":"change","id":"c","at":1e400}\n'],
];

interface Case {
  method: string;
  path: string;
  init: RequestInit;
  /** What a 400/422 must name; null: no naming asked (bodies with their own paths). */
  names: string | null;
  label: string;
  /** A path segment as sent, when it is the value under test. */
  badSegment?: string;
}

const backends = scratchBackends('fuzz');

describe.each(backends)('contract fuzzer on $name', (backend) => {
  const server = useServer(backend);
  let sent = 0;
  afterAll(() => {
    console.log(`contract fuzzer on ${backend.name}: ${sent} requests`);
  });

  it('never answers 5xx, names the parameter of every 400/422, and stores nothing on a 4xx', async () => {
    const run = await createRun(server);
    const batch = [
      {
        type: 'change',
        id: 'c-fuzz',
        kind: 'endpoint',
        target: 'svc',
        action: 'add',
        at: '2026-02-01T10:00:00Z',
      },
      {
        type: 'observation',
        change: 'c-fuzz',
        proxy: 'p1',
        stage: 'acked',
        at: '2026-02-01T10:00:00.200Z',
      },
      { type: 'observation', change: 'c-fuzz', proxy: 'p1', at: '2026-02-01T10:00:00.250Z' },
    ];
    const other = await createRun(server);
    const log = writeHdrLog({
      seed: 1,
      startMs: Date.UTC(2026, 1, 1, 10),
      intervals: 2,
      perInterval: 5,
    });
    const events = await server.api(`/runs/${run.id}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: batch.map((e) => JSON.stringify(e)).join('\n'),
    });
    expect(events.status).toBeLessThan(300);
    const project = await server.json('/projects', jsonBody({ name: `fuzz-${Date.now()}` }));
    const projectId =
      (project.body as { id?: string }).id ?? '00000000-0000-0000-0000-000000000000';
    const valid: Record<string, string> = {
      id: run.id,
      changeId: 'c-fuzz',
      seriesId: '1',
      slug: 'no-such-report',
      source: 'no-such-source',
    };

    const cases: Case[] = [];
    let seed = SEED;
    for (const [template, methods] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const params = (op.parameters ?? []).filter((p) => p.in !== 'header');
        // Required query parameters other than the one under test get a valid value.
        const required = params.filter((p) => p.in === 'query' && p.required);
        const validQuery = (p: Parameter) =>
          p.name === 'runs'
            ? `${run.id},${other.id}`
            : p.name === 'ids'
              ? run.id
              : p.name === 'benchmark'
                ? 'int-test'
                : p.name === 'baseline'
                  ? 'previous'
                  : String(
                      (p.schema as { example?: unknown })?.example ?? p.schema?.enum?.[0] ?? 'x',
                    );
        const queryWith = (name: string, encoded: string) =>
          [
            ...required
              .filter((p) => p.name !== name)
              .map((p) => `${p.name}=${encodeURIComponent(validQuery(p))}`),
            `${name}=${encoded}`,
          ].join('&');
        const pathOf = (over: Record<string, string> = {}) =>
          template.replace(/\{(\w+)\}/g, (_m, name: string) => {
            if (name in over) return over[name] as string;
            if (name === 'id' && template.startsWith('/api/v1/projects/')) return projectId;
            return encodeURIComponent(valid[name] ?? 'x');
          });
        // A body the route takes, so that the parameter under test is what is at fault.
        const bodyInit = (): RequestInit =>
          method === 'post' && template.endsWith('/results')
            ? { headers: { 'content-type': 'text/plain' }, body: log.text }
            : op.requestBody
              ? { headers: { 'content-type': 'application/json' }, body: '{}' }
              : {};
        for (const p of params) {
          const values = [...hostile(p), ...boundaries(p), ...randomValues(p, seed++)];
          for (const v of values) {
            const url =
              p.in === 'path'
                ? pathOf({ [p.name]: v.encoded })
                : `${pathOf()}?${queryWith(p.name, v.encoded)}`;
            cases.push({
              method: method.toUpperCase(),
              path: url,
              init: { method: method.toUpperCase(), ...bodyInit() },
              names: p.name,
              label: `${p.in} ${p.name} = ${v.label.slice(0, 60)}`,
              ...(p.in === 'path' ? { badSegment: v.encoded } : {}),
            });
          }
        }
        if (op.requestBody) {
          const types = Object.keys(op.requestBody.content ?? {});
          const json = types.some((t) => t.includes('json') && !t.includes('ndjson'));
          const bodies = json ? JSON_BODIES : TEXT_BODIES;
          const type = json ? 'application/json' : (types[0] ?? 'text/plain');
          for (const [label, body] of bodies) {
            cases.push({
              method: method.toUpperCase(),
              path: pathOf(),
              init: { method: method.toUpperCase(), headers: { 'content-type': type }, body },
              names: null,
              label: `body (${type}): ${label}`,
            });
          }
        }
      }
    }

    // Bounded: a seeded sample of MAX_CASES of them (the same every run), in their order;
    // MESHBENCH_FUZZ_CASES=all sends every one.
    const chosen =
      MAX_CASES >= cases.length
        ? cases
        : (
            fc.sample(
              fc.shuffledSubarray(
                cases.map((_, i) => i),
                {
                  minLength: MAX_CASES,
                  maxLength: MAX_CASES,
                },
              ),
              { seed: SEED, numRuns: 1 },
            )[0] as number[]
          )
            .sort((a, b) => a - b)
            .map((i) => cases[i] as Case);
    console.log(`contract fuzzer on ${backend.name}: ${chosen.length} of ${cases.length} cases`);
    const failures: string[] = [];
    /** Sends a case; its answer's status and text, the 5xx and naming checks done. */
    const send = async (c: Case) => {
      const url = c.path.startsWith('/api/v1') ? c.path.slice('/api/v1'.length) : null;
      const headers = new Headers(c.init.headers);
      headers.set('authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
      const response = url
        ? await server.api(url, { ...c.init, headers })
        : await fetch(`${server.url}${c.path}`, { ...c.init, headers });
      sent++;
      const text = await response.text();
      const status = response.status;
      const where = `${c.method} ${c.path.slice(0, 120)} [${c.label}] -> ${status} ${text.slice(0, 200)}`;
      if (status >= 500) failures.push(`5xx: ${where}`);
      if ((status === 400 || status === 422) && c.names) {
        let body: { field?: string; message?: string } = {};
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: names nothing
        }
        const message = body.message ?? '';
        // A path segment that is not percent-encoded UTF-8 is refused by the router, before
        // any route is known: its message quotes the segment.
        const named =
          body.field === c.names ||
          message.includes(c.names) ||
          (c.badSegment !== undefined && message.includes(c.badSegment));
        if (!named) failures.push(`does not name ${c.names}: ${where}`);
      }
      return { status, where };
    };
    // Reads go 6 at a time; each write alone, the tables compared around it. The tables as
    // the last write left them are taken again only after a write that succeeded.
    let current: Record<string, string> | null = null;
    let reads: Case[] = [];
    const flush = async () => {
      await Promise.all(reads.map(send));
      reads = [];
    };
    for (const c of chosen) {
      if (c.method === 'GET') {
        reads.push(c);
        if (reads.length === 6) await flush();
        continue;
      }
      await flush();
      current ??= await snapshotAll(server.app.database);
      const { status, where } = await send(c);
      if (status < 400 || status >= 500) {
        current = null;
        continue;
      }
      const after = await snapshotAll(server.app.database);
      if (JSON.stringify(after) !== JSON.stringify(current))
        failures.push(`changed rows: ${where}`);
      current = after;
    }
    await flush();
    if (process.env.FUZZ_OUT)
      (await import('node:fs')).writeFileSync(process.env.FUZZ_OUT, failures.join('\n'));
    expect(failures).toEqual([]);
  }, 600_000);
});
