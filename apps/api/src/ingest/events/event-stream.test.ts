import { isUtf8 } from 'node:buffer';
import type { ProbeEvent } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors.ts';
import { jsonArrayLines, parseLine } from './event-stream.ts';

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

/**
 * The events of a JSON array as the batch reader takes them: jsonArrayLines' lines, each
 * line's event parsed and checked as the NDJSON reader's general way does (parseLine),
 * numbered by its line. Blank lines may only follow the last event.
 */
async function decode(text: string, source: AsyncIterable<Buffer> = chunks(text), limit = 1 << 30) {
  const parts: Buffer[] = [];
  const out: { line: number; event: ProbeEvent }[] = [];
  const take = (final: boolean) => {
    const lines = Buffer.concat(parts).toString('utf8').split('\n');
    const rest = final ? '' : (lines.pop() as string);
    parts.length = 0;
    parts.push(Buffer.from(rest));
    for (const line of lines) {
      const no = out.length + 1;
      if (line.trim() === '') {
        blank = true;
        continue;
      }
      if (blank) throw new Error(`an event after a blank line: ${line}`);
      out.push({ line: no, event: parseLine(line, no, 'event') });
    }
  };
  let blank = false;
  for await (const lines of jsonArrayLines(source, limit)) {
    parts.push(lines);
    take(false);
  }
  take(true);
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

describe('jsonArrayLines', () => {
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

  it('hands out each line as soon as its element ends (the body is never held whole)', async () => {
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
    let lines = 0;
    let behind = 0;
    for await (const out of jsonArrayLines(slow(), 1 << 30)) {
      for (const byte of out) if (byte === 0x0a) lines++;
      // Element i ends at the comma sent with element i + 1.
      behind = Math.max(behind, sent - 1 - lines);
    }
    expect(lines).toBe(total);
    expect(behind).toBeLessThanOrEqual(1);
  });

  it('reads what JSON.parse and the schema read, whatever the bytes and chunks (seeded fuzz)', async () => {
    let seed = 26;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pieces = [
      ...[
        '\n',
        '\r',
        ',',
        '[',
        ']',
        '{',
        '}',
        '"',
        '\\',
        ' ',
        '\t',
        'é',
        '中',
        '\u2028',
        'x',
        '1',
        '\u0001',
      ].map((p) => Buffer.from(p)),
      // Bad UTF-8: a byte no character starts with, a character cut short.
      Buffer.from([0xff]),
      Buffer.from([0xe4, 0xb8]),
    ];
    const base = [
      obs('p,1', { note: 'a ] b } c [ d { , "q" \\ e' }),
      obs('p2'),
      obs('p\u00e9\u4e2d\u{1f600}', { list: '[1,[2,3]]' }),
      { ...obs('p4'), node: 'n4' },
    ];
    /** What the slow, obviously right path reads: the body parsed whole, each element checked. */
    const slow = (bytes: Buffer) => {
      if (!isUtf8(bytes)) return 'refused';
      let value: unknown;
      try {
        value = JSON.parse(bytes.toString('utf8'));
      } catch {
        return 'refused';
      }
      if (!Array.isArray(value)) return 'refused';
      try {
        return value.map((event, i) => ({
          line: i + 1,
          event: parseLine(JSON.stringify(event), i + 1),
        }));
      } catch {
        return 'refused';
      }
    };
    const fast = async (bytes: Buffer, size: number) => {
      try {
        return await decode('', cut(bytes, size));
      } catch (error) {
        if (error instanceof AppError) return 'refused';
        throw error;
      }
    };
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      const events = base.slice(0, 1 + Math.floor(next() * base.length));
      const pretty = next() < 0.5;
      let bytes = Buffer.from(pretty ? JSON.stringify(events, null, 2) : JSON.stringify(events));
      for (let m = Math.floor(next() * 3); m > 0; m--) {
        const at = Math.floor(next() * (bytes.length + 1));
        const piece = pieces[Math.floor(next() * pieces.length)] as Buffer;
        const rest = bytes.subarray(next() < 0.7 ? at : at + 1);
        bytes = Buffer.concat([
          bytes.subarray(0, at),
          next() < 0.7 ? piece : Buffer.alloc(0),
          rest,
        ]);
      }
      const expected = slow(bytes);
      if (expected !== 'refused') accepted++;
      expect(await fast(bytes, 1 + Math.floor(next() * 40)), bytes.toString('hex')).toEqual(
        expected,
      );
    }
    // Both kinds were tried.
    expect(accepted).toBeGreaterThan(500);
    expect(accepted).toBeLessThan(2900);
  });
});
