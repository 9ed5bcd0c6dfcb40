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

async function decode(text: string) {
  const out = [];
  for await (const events of decodeJsonArray(chunks(text), 1 << 30)) out.push(...events);
  return out;
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
