import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors.ts';
import { decodeJsonArray } from './event-stream.ts';

const obs = (proxy: string, attrs?: Record<string, string>) => ({
  type: 'observation',
  change: 'c1',
  proxy,
  at: '2026-02-01T10:00:00.5Z',
  ...(attrs ? { attrs } : {}),
});

async function* chunks(text: string): AsyncGenerator<Buffer> {
  yield Buffer.from(text);
}

/** The bytes of `text` in chunks of `size` bytes (cut anywhere, inside characters too). */
async function* cut(text: string | Buffer, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function decode(text: string, source: AsyncIterable<Buffer> = chunks(text), limit = 1 << 30) {
  const out = [];
  for await (const events of decodeJsonArray(source, limit)) out.push(...events);
  return out;
}

async function refusedChunks(source: AsyncIterable<Buffer>, limit = 1 << 30): Promise<AppError> {
  try {
    await decode('', source, limit);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('accepted');
}

async function refusal(text: string): Promise<AppError> {
  try {
    await decode(text);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`accepted: ${text}`);
}

describe('decodeJsonArray', () => {
  it('reads the events JSON.parse reads, numbered by their place, whatever their bytes hold', async () => {
    const events = [
      obs('p,1', { note: 'a ] b } c [ d { , "q" \\ e' }),
      obs('p\u00e9\u4e2d'),
      obs('p3', { list: '[1,[2,3]]' }),
    ];
    const text = ` \n[ ${events.map((e) => JSON.stringify(e)).join(' ,\n')} ]\n `;
    const read = await decode(text);
    expect(read.map((e) => e.line)).toEqual([1, 2, 3]);
    expect(read.map((e) => e.event)).toEqual(JSON.parse(text));
    expect(await decode('[]')).toEqual([]);
    expect(await decode(' [ ] ')).toEqual([]);
  });

  it('refuses what is not a JSON array of events, naming the event at fault', async () => {
    expect((await refusal(JSON.stringify(obs('p1')))).message).toMatch(/must be an array/);
    expect((await refusal('{"a":')).code).toBe('malformed_json');
    expect((await refusal(`[${JSON.stringify(obs('p1'))}`)).message).toMatch(/not valid JSON/);
    const trailing = await refusal(`[${JSON.stringify(obs('p1'))},]`);
    expect(trailing.message).toMatch(/^event 2: not valid JSON/);
    expect(trailing.where.line).toBe(2);
    const broken = await refusal(`[${JSON.stringify(obs('p1'))}, {"type": nope}]`);
    expect(broken.message).toMatch(/^event 2: not valid JSON/);
    expect((await refusal('[] x')).message).toMatch(/after the array/);
    expect((await refusal(`[${JSON.stringify(obs('p1'))}] ]`)).message).toMatch(/after the array/);
    const invalid = await refusal(`[${JSON.stringify({ ...obs('p1'), proxy: 7 })}]`);
    expect(invalid.code).toBe('invalid_event');
    expect(invalid.where.line).toBe(1);
  });

  it('reads the same events however the body is cut into chunks', async () => {
    const events = [
      obs('p,1', { note: 'a ] b } c [ d { , "q" \\ e \\" f' }),
      obs('p\u00e9\u4e2d\u{1f600}'),
      obs('p3', { list: '[1,[2,3]]' }),
    ];
    const text = ` \n[ ${events.map((e) => JSON.stringify(e)).join(' ,\n')} ]\n `;
    for (const size of [1, 2, 3, 5, 7, 16, 64]) {
      const read = await decode(text, cut(text, size));
      expect(read.map((e) => e.line)).toEqual([1, 2, 3]);
      expect(read.map((e) => e.event)).toEqual(events);
    }
    expect(await decode('', cut(' [ ] ', 1))).toEqual([]);
  });

  it('names the byte of bad UTF-8 and the event at fault across chunks, and stops at the limit', async () => {
    const one = JSON.stringify(obs('p1'));
    // A lone 0xff inside event 2's proxy: byte (1-based) counted from the body's start.
    const before = Buffer.from(`[${one},{"type":"observation","change":"c1","proxy":"p`);
    const body = Buffer.concat([
      before,
      Buffer.from([0xff]),
      Buffer.from('","at":"2026-02-01T10:00:00Z"}]'),
    ]);
    for (const size of [1, 4, 1000]) {
      const bad = await refusedChunks(cut(body, size));
      expect(bad.code).toBe('invalid_utf8');
      expect(bad.message).toContain(`(byte ${before.length + 1})`);
    }
    const after = await refusedChunks(
      cut(Buffer.concat([Buffer.from('[] '), Buffer.from([0xc3])]), 1),
    );
    expect(after.code).toBe('invalid_utf8');
    expect(after.message).toContain('(byte 4)');
    const trailing = await refusedChunks(cut('[]  x', 2));
    expect(trailing.message).toMatch(/after the array, at byte 5/);
    const notArray = await refusedChunks(cut('  {"a": 1}', 3));
    expect(notArray.message).toMatch(/must be an array/);
    const cutShort = await refusedChunks(cut(`[${one},${one.slice(0, 20)}`, 8));
    expect(cutShort.code).toBe('malformed_json');
    expect(cutShort.message).toMatch(/Unexpected end/);
    const broken = await refusedChunks(cut(`[${one}, {"type": nope}]`, 3));
    expect(broken.message).toMatch(/^event 2: not valid JSON/);
    // 413 as soon as the bytes read pass the limit, before the array's end.
    const big = `[${Array.from({ length: 200 }, () => one).join(',')}]`;
    const tooLarge = await refusedChunks(cut(big, 100), 1000);
    expect(tooLarge.statusCode).toBe(413);
    expect((await decode(big, cut(big, 100), big.length)).length).toBe(200);
  });

  it('yields the first events before the last bytes arrive (the body is never held whole)', async () => {
    const one = JSON.stringify(obs('p1'));
    let sent = 0;
    const total = 3000;
    async function* slow(): AsyncGenerator<Buffer> {
      yield Buffer.from('[');
      for (let i = 0; i < total; i++) {
        sent++;
        yield Buffer.from(i === 0 ? one : `,${one}`);
      }
      yield Buffer.from(']');
    }
    const sentAtFirst: number[] = [];
    let count = 0;
    for await (const events of decodeJsonArray(slow(), 1 << 30)) {
      sentAtFirst.push(sent);
      count += events.length;
    }
    expect(count).toBe(total);
    // The first 1,000 events came out when about 1,000 of 3,000 had been sent.
    expect(sentAtFirst[0]).toBeLessThan(1100);
  });

  it('lets the event loop run while it decodes a large array', async () => {
    const text = `[${Array.from({ length: 30_000 }, (_, i) => JSON.stringify(obs(`p${i}`))).join(',')}]`;
    let turns = 0;
    let decoding = true;
    const spin = () => {
      if (!decoding) return;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    const turnsBefore = turns;
    let count = 0;
    for await (const events of decodeJsonArray(chunks(text), 1 << 30)) {
      count += events.length;
    }
    const turnsDuring = turns - turnsBefore;
    decoding = false;
    expect(count).toBe(30_000);
    // Other work got turns of the event loop before the decoding ended, not only after.
    expect(turnsDuring).toBeGreaterThan(0);
  });
});
