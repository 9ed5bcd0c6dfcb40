import type { ProbeEvent } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { readStarted } from '../../domain/slices.ts';
import { AppError } from '../../errors.ts';
import { ObservationRows } from '../../repositories/event-rows.ts';
import { readCopyBinary, timestampOf } from '../../test/copy-binary-reader.ts';
import { BatchAssembler, MAX_LINE_BYTES } from './batch-assembler.ts';
import type { NumberedEvent } from './event-stream.ts';

const RUN = '0b4e1a52-8f4c-4d2e-9a51-6f1f2c3d4e5f';

async function collect(rows: AsyncIterable<Uint8Array>) {
  const parts: Uint8Array[] = [];
  for await (const chunk of rows) parts.push(chunk);
  return readCopyBinary(Buffer.concat(parts));
}

/** A batch read as the service reads it: observations written as the repository's COPY rows. */
function batchOf(firstLine?: number) {
  const observations = new ObservationRows(RUN, 7);
  return { observations, batch: new BatchAssembler(observations, firstLine) };
}

async function assemble(events: ProbeEvent[]) {
  const { observations, batch } = batchOf();
  async function* source(): AsyncGenerator<NumberedEvent[]> {
    yield events.map((event, i) => ({ line: i + 1, event }));
  }
  return { batch, rows: await collect(observations.rows(batch.readEvents(source()))) };
}

/** NDJSON text (or a JSON array: `format`) cut into chunks at the given byte offsets. */
async function assembleNdjson(
  text: string,
  cuts: number[] = [],
  limit = 1e9,
  firstLine = 1,
  format: 'ndjson' | 'json' = 'ndjson',
) {
  const { observations, batch } = batchOf(firstLine);
  const bytes = Buffer.from(text);
  async function* body(): AsyncGenerator<Buffer> {
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      yield bytes.subarray(from, cut);
      from = cut;
    }
  }
  return { batch, rows: await collect(observations.rows(batch.read(body(), format, limit))) };
}

const str = (field: Buffer | null | undefined) => (field ? field.toString('utf8') : field);

const change: ProbeEvent = {
  type: 'change',
  id: 'c1',
  kind: 'endpoint',
  target: 'hey',
  action: 'delete',
  at: '2026-02-01T10:00:00Z',
};
const changeLine = JSON.stringify(change);

describe('BatchAssembler', () => {
  it('writes binary COPY tuples: uuid, texts as they are, NULLs, jsonb, the batch', async () => {
    const { rows } = await assemble([
      change,
      {
        type: 'observation',
        change: 'c1',
        proxy: 'a\tb',
        at: '2026-02-01T10:00:00.5Z',
        attrs: { az: 'x' },
      },
    ]);
    expect(rows).toHaveLength(1);
    const [run, changeId, proxy, node, at, cause, attrs, batch] = rows[0] as (Buffer | null)[];
    expect(run?.toString('hex')).toBe(RUN.replaceAll('-', ''));
    expect(str(changeId)).toBe('c1');
    expect(str(proxy)).toBe('a\tb'); // binary COPY needs no escapes
    expect(node).toBeNull();
    expect(timestampOf(at as Buffer)).toEqual({ iso: '2026-02-01T10:00:00.500Z', micros: 0 });
    expect(cause).toBeNull();
    expect(attrs?.[0]).toBe(1); // jsonb's version byte
    expect(attrs?.subarray(1).toString()).toBe('{"az":"x"}');
    expect(batch?.readBigInt64BE(0)).toBe(7n);
  });
  it('keeps microseconds and reads offsets and nanoseconds (truncated)', async () => {
    const { rows } = await assemble([
      change,
      { type: 'observation', change: 'c1', proxy: 'p', at: '2026-02-01T11:00:00.0000019+01:00' },
      { type: 'observation', change: 'c1', proxy: 'q', at: '1999-12-31T23:59:59.999999Z' },
    ]);
    expect(timestampOf(rows[0]?.[4] as Buffer)).toEqual({
      iso: '2026-02-01T10:00:00.000Z',
      micros: 1,
    });
    // Before Postgres' epoch: a negative 64-bit value.
    const early = rows[1]?.[4] as Buffer;
    expect(early.readBigInt64BE(0)).toBe(-1n);
  });
  it.each([
    ['a space for the T', '2026-02-01 10:00:00Z'],
    ['no offset', '2026-02-01T10:00:00'],
    ['no such day', '2026-02-30T10:00:00Z'],
  ])('refuses an at with %s, naming line and field', async (_name, at) => {
    const error = await assemble([
      change,
      { type: 'observation', change: 'c1', proxy: 'p', at },
    ]).catch((e) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ statusCode: 400, where: { line: 2, field: 'at' } });
    const line = JSON.stringify({ type: 'observation', change: 'c1', proxy: 'p', at });
    const fromBytes = await assembleNdjson(`${changeLine}\n${line}\n`).catch((e) => e);
    expect(fromBytes).toMatchObject({ statusCode: 400, where: { line: 2, field: 'at' } });
  });
  it('accepts a change given twice the same way, refuses it given differently', async () => {
    expect((await assemble([change, { ...change }])).batch.changes.size).toBe(1);
    const error = await assemble([change, { ...change, action: 'add' } as ProbeEvent]).catch(
      (e) => e,
    );
    expect(error).toMatchObject({ statusCode: 409, where: { line: 2, field: 'action' } });
  });
});

describe('BatchAssembler, NDJSON from bytes', () => {
  const obs = (proxy: string, at: string, extra: Record<string, string> = {}) =>
    JSON.stringify({ type: 'observation', change: 'c1', proxy, ...extra, at });

  it('loads common lines and others alike, whichever way each is read', async () => {
    const text = [
      changeLine,
      obs('p-1', '2026-02-01T10:00:00.25Z', { node: 'n-1', cause: 'reconnect' }),
      obs('p-é', '2026-02-01T10:00:00.5Z'), // not ASCII: the general way
      `{"type": "observation", "change": "c1", "proxy": "p-2", "at": "2026-02-01T10:00:01Z"}`,
      obs('p-3', '2026-02-01T11:00:00+01:00'), // an offset: the general way
      obs('p-1', '2026-02-01T10:00:00.1Z'), // p-1 again, earlier
    ].join('\n');
    const { batch, rows } = await assembleNdjson(text);
    expect(
      rows.map((r) => [str(r[2]), str(r[3]), timestampOf(r[4] as Buffer).iso, str(r[5])]),
    ).toEqual([
      ['p-1', 'n-1', '2026-02-01T10:00:00.250Z', 'reconnect'],
      ['p-é', null, '2026-02-01T10:00:00.500Z', null],
      ['p-2', null, '2026-02-01T10:00:01.000Z', null],
      ['p-3', null, '2026-02-01T10:00:00.000Z', null],
      ['p-1', null, '2026-02-01T10:00:00.100Z', null],
    ]);
    expect(batch.accepted).toBe(6);
    const apps = batch.applications.get('c1')?.get('applied');
    expect(apps?.proxies).toBe(4);
    expect(new Map(apps?.entries())).toEqual(
      new Map([
        ['p-1', Date.parse('2026-02-01T10:00:00.1Z') * 1000],
        ['p-é', Date.parse('2026-02-01T10:00:00.5Z') * 1000],
        ['p-2', Date.parse('2026-02-01T10:00:01Z') * 1000],
        ['p-3', Date.parse('2026-02-01T10:00:00Z') * 1000],
      ]),
    );
    // Each first application's node, as the stored rows give it: p-1's earliest names none.
    expect(apps?.withNodes()).toEqual([
      { node: null, atUs: Date.parse('2026-02-01T10:00:00.1Z') * 1000 },
      { node: null, atUs: Date.parse('2026-02-01T10:00:00.5Z') * 1000 },
      { node: null, atUs: Date.parse('2026-02-01T10:00:01Z') * 1000 },
      { node: null, atUs: Date.parse('2026-02-01T10:00:00Z') * 1000 },
    ]);
  });

  it('keeps the node of each first application, read from bytes or the general way', async () => {
    const text = [
      changeLine,
      obs('p-1', '2026-02-01T10:00:00.25Z', { node: 'n-1' }),
      obs('p-2', '2026-02-01T10:00:00.5Z', { node: 'n-é' }), // not ASCII: the general way
      obs('p-1', '2026-02-01T10:00:00.2Z', { node: 'n-2' }), // earlier: its node counts
      obs('p-2', '2026-02-01T10:00:00.6Z', { node: 'n-3' }), // later: a repeat's node does not
      obs('p-3', '2026-02-01T10:00:00.7Z', { node: 'n-1' }),
      obs('p-3', '2026-02-01T10:00:00.7Z', { node: 'n-4' }), // the same instant: the first kept
      obs('p-4', '2026-02-01T10:00:00.8Z'),
    ].join('\n');
    const { batch } = await assembleNdjson(text);
    const us = (iso: string) => Date.parse(iso) * 1000;
    expect(batch.applications.get('c1')?.get('applied')?.withNodes()).toEqual([
      { node: 'n-2', atUs: us('2026-02-01T10:00:00.2Z') },
      { node: 'n-é', atUs: us('2026-02-01T10:00:00.5Z') },
      { node: 'n-1', atUs: us('2026-02-01T10:00:00.7Z') },
      { node: null, atUs: us('2026-02-01T10:00:00.8Z') },
    ]);
  });

  it("writes each line's stage (NULL without one) and keeps first applications per stage", async () => {
    const text = [
      changeLine,
      obs('p-1', '2026-02-01T10:00:00.01Z', { stage: 'received' }),
      obs('p-2', '2026-02-01T10:00:00.02Z', { stage: 'received' }),
      obs('p-1', '2026-02-01T10:00:00.03Z'), // no stage: applied
      obs('p-1', '2026-02-01T10:00:00.04Z', { stage: 'applied' }), // named: the same stage
      // The general way (attrs), between fast lines of another stage.
      `{"type":"observation","change":"c1","proxy":"p-2","stage":"serving","at":"2026-02-01T10:00:00.05Z","attrs":{"k":1}}`,
      obs('p-1', '2026-02-01T10:00:00.005Z', { stage: 'received' }), // p-1 earlier
      obs('p-3', '2026-02-01T10:00:00.06Z'),
    ].join('\n');
    const { batch, rows } = await assembleNdjson(text);
    expect(rows.map((r) => [str(r[2]), str(r[8])])).toEqual([
      ['p-1', 'received'],
      ['p-2', 'received'],
      ['p-1', null],
      ['p-1', 'applied'],
      ['p-2', 'serving'],
      ['p-1', 'received'],
      ['p-3', null],
    ]);
    expect(str(rows[4]?.[6]?.subarray(1) as Buffer)).toBe('{"k":1}'); // attrs before the stage
    expect(rows.every((r) => r[7]?.readBigInt64BE(0) === 7n)).toBe(true);
    const stages = batch.applications.get('c1');
    expect([...(stages?.keys() ?? [])]).toEqual(['received', 'applied', 'serving']);
    const firsts = (stage: string) => new Map(stages?.get(stage)?.entries());
    const us = (iso: string) => Date.parse(iso) * 1000;
    expect(firsts('received')).toEqual(
      new Map([
        ['p-1', us('2026-02-01T10:00:00.005Z')],
        ['p-2', us('2026-02-01T10:00:00.02Z')],
      ]),
    );
    expect(firsts('applied')).toEqual(
      new Map([
        ['p-1', us('2026-02-01T10:00:00.03Z')],
        ['p-3', us('2026-02-01T10:00:00.06Z')],
      ]),
    );
    expect(stages?.get('applied')?.observations).toBe(3);
    expect(stages?.get('received')?.observations).toBe(3);
  });

  it('joins lines cut across chunks, even inside a multi-byte character', async () => {
    const text = `${changeLine}\r\n\n  \n${obs('p-é', '2026-02-01T10:00:00Z')}\n${obs('q', '2026-02-01T10:00:01Z')}`;
    const bytes = Buffer.from(text);
    const inE = bytes.indexOf(Buffer.from('é')) + 1;
    for (const cuts of [[], [5], [inE], [inE - 3, inE, inE + 2], [bytes.length - 3]]) {
      const { batch, rows } = await assembleNdjson(text, cuts);
      expect(
        rows.map((r) => str(r[2])),
        String(cuts),
      ).toEqual(['p-é', 'q']);
      expect(batch.accepted).toBe(3);
    }
  });

  it('numbers lines with blank ones counted, in the errors it words', async () => {
    const text = `${changeLine}\n\n{"type":"observation","change":"c1","proxy":"p"}\n`;
    const error = await assembleNdjson(text).catch((e) => e);
    expect(error).toMatchObject({ statusCode: 400, where: { line: 3 } });
    const malformed = await assembleNdjson(`${changeLine}\r\n{"type":"observ`).catch((e) => e);
    expect(malformed).toMatchObject({
      statusCode: 400,
      code: 'malformed_json',
      where: { line: 2 },
    });
  });

  it('stops at the byte limit with a 413', async () => {
    const text = `${changeLine}\n${obs('p', '2026-02-01T10:00:00Z')}\n`;
    const error = await assembleNdjson(text, [10], 20).catch((e) => e);
    expect(error).toMatchObject({ statusCode: 413, code: 'body_too_large' });
  });

  it('numbers lines from the first it is told, and counts the last read', async () => {
    const text = `${changeLine}\n\n${obs('p', '2026-02-01T10:00:00Z')}\n${obs('q', '2026-02-01T10:00:01Z')}`;
    for (const cuts of [[], [3], [text.length - 2]]) {
      const { batch } = await assembleNdjson(text, cuts, 1e9, 40_001);
      expect(batch.lastLine, String(cuts)).toBe(40_004);
    }
    const { batch } = await assembleNdjson(`${text}\n`, [], 1e9, 40_001);
    expect(batch.lastLine).toBe(40_004); // a final newline ends the last line, it adds none
    const error = await assembleNdjson(
      `${changeLine}\n\n{"type":"observation"}\n`,
      [],
      1e9,
      7,
    ).catch((e) => e);
    expect(error).toMatchObject({ statusCode: 400, where: { line: 9 } });
    expect(error.message).toMatch(/^line 9:/);
  });

  it('refuses a line longer than the line limit, having read no more of it than the limit', async () => {
    // 256 MiB of one line in 256 KiB chunks, as gunzip hands over a small bomb.
    const chunk = Buffer.alloc(256 * 1024, 'a');
    let read = 0;
    async function* endless(): AsyncGenerator<Buffer> {
      yield Buffer.from(`${changeLine}\n{"type":"observation","proxy":"`);
      for (let i = 0; i < 1024; i++) {
        read += chunk.length;
        yield chunk;
      }
    }
    const { observations, batch } = batchOf();
    const error = await collect(
      observations.rows(batch.read(endless(), 'ndjson', 512 * 1024 * 1024)),
    ).catch((e) => e);
    expect(error).toMatchObject({ statusCode: 413, code: 'line_too_large', where: { line: 2 } });
    expect(read).toBeLessThanOrEqual(MAX_LINE_BYTES + chunk.length);
    // Whole lines of any length up to the limit are taken, across any number of chunks.
    const long = JSON.stringify({
      type: 'incident',
      kind: 'reconnect',
      from: '2026-02-01T10:00:00Z',
      attrs: { note: 'x'.repeat(MAX_LINE_BYTES - 200) },
    });
    const cuts = Array.from({ length: 40 }, (_, i) => 100 + i * 20_000);
    const { batch: taken } = await assembleNdjson(`${changeLine}\n${long}\n`, cuts);
    expect(taken.incidents).toHaveLength(1);
  });

  it('reads a JSON array as the same lines, its events named by their place', async () => {
    const lines = [
      changeLine,
      obs('p-1', '2026-02-01T10:00:00.25Z', { node: 'n-1', cause: 'reconnect' }),
      obs('p-é', '2026-02-01T10:00:00.5Z'),
      `{"type": "observation", "change": "c1", "proxy": "p-2", "at": "2026-02-01T10:00:01Z"}`,
      obs('p-3', '2026-02-01T11:00:00+01:00'),
    ];
    const ndjson = await assembleNdjson(lines.join('\n'));
    // Pretty, with a line break inside an element.
    const elements = lines.map((l) => l.replace(', "proxy"', ',\r\n "proxy"'));
    const array = `[\n${elements.join(',\n  ')}\n]\n`;
    for (const cuts of [[], [1, 90, 91, 200, 333]]) {
      const json = await assembleNdjson(array, cuts, 1e9, 1, 'json');
      expect(json.rows).toEqual(ndjson.rows);
      expect(json.batch.accepted).toBe(5);
      expect([...(json.batch.applications.get('c1')?.get('applied')?.entries() ?? [])]).toEqual([
        ...(ndjson.batch.applications.get('c1')?.get('applied')?.entries() ?? []),
      ]);
    }
    const refused = (text: string) => assembleNdjson(text, [], 1e9, 1, 'json').catch((e) => e);
    expect(
      await refused(`[${changeLine}, {"type":"observation","change":"c1","proxy":7}]`),
    ).toMatchObject({
      statusCode: 400,
      code: 'invalid_event',
      message: expect.stringMatching(/^event 2: /),
      where: { line: 2 },
    });
    expect(await refused(`[${changeLine},\n{"type": nope}]`)).toMatchObject({
      code: 'malformed_json',
      message: expect.stringMatching(/^event 2: not valid JSON/),
    });
    // The first fault in the body is the one named, though a later one is in the same chunk.
    expect(await refused(`[${changeLine}, {"type": nope}] x`)).toMatchObject({
      message: expect.stringMatching(/^event 2: not valid JSON/),
    });
    const long = `[${changeLine}, {"type":"incident","kind":"x","from":"2026-02-01T10:00:00Z","attrs":{"note":"${'n'.repeat(MAX_LINE_BYTES)}"}}]`;
    expect(await refused(long)).toMatchObject({
      statusCode: 413,
      message: expect.stringMatching(/^event 2 is longer than/),
    });
  });

  it('lets the event loop run between the chunks of a large batch while a read is in progress', async () => {
    const lines = [changeLine];
    for (let i = 0; i < 30_000; i++) lines.push(obs(`p-${i}`, '2026-02-01T10:00:01Z'));
    const text = `[${lines.join(',')}]`;
    const cuts = Array.from(
      { length: Math.floor(text.length / 65_536) },
      (_, i) => (i + 1) * 65_536,
    );
    let turns = 0;
    let reading = true;
    const spin = () => {
      if (!reading) return;
      turns++;
      setImmediate(spin);
    };
    const done = readStarted();
    try {
      setImmediate(spin);
      const { batch } = await assembleNdjson(text, cuts, 1e9, 1, 'json');
      expect(batch.accepted).toBe(30_001);
    } finally {
      reading = false;
      done();
    }
    // Other work got turns of the event loop before the batch was read, not only after.
    expect(turns).toBeGreaterThan(1);
  });
});
