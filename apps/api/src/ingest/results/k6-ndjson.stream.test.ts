import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeK6Ndjson } from './k6-ndjson.decoder.ts';
import { decodeK6NdjsonChunks } from './k6-ndjson.stream.ts';
import { k6Stream } from './k6-ndjson.test-fixtures.ts';
import { ResultFileError } from './result-file-error.ts';

const FIXTURE = readFileSync(new URL('./fixtures/k6-out-json.ndjson', import.meta.url));

async function* chunksOf(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const decode = (bytes: Uint8Array, size: number, maxLineBytes = 1 << 20) =>
  decodeK6NdjsonChunks(chunksOf(bytes, size), { maxLineBytes });

const failure = async (promise: Promise<unknown>): Promise<ResultFileError> => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ResultFileError);
  return error as ResultFileError;
};

describe('decodeK6NdjsonChunks', () => {
  it('decodes the fixture as decodeK6Ndjson does, whatever the chunk size', async () => {
    const whole = decodeK6Ndjson(FIXTURE.toString('utf8'));
    for (const size of [1, 2, 3, 7, 64, 333, 4096, FIXTURE.length]) {
      expect(await decode(FIXTURE, size)).toEqual(whole);
    }
  });

  it('keeps a multi-byte character cut between chunks, and a BOM and CRLF lines', async () => {
    const { lines } = k6Stream({
      seed: 3,
      startMs: Date.UTC(2026, 10, 26, 13),
      seconds: 3,
      perSecond: 20,
    });
    const text = `\uFEFF${[...lines()]
      .map((l) => l.replace('"group":""', '"group":"über-ñ-€-😀"'))
      .join('\r\n')}`;
    expect(text).toContain('😀');
    const bytes = Buffer.from(text, 'utf8');
    const whole = decodeK6Ndjson(text);
    for (const size of [1, 5, 1000]) expect(await decode(bytes, size)).toEqual(whole);
  });

  it('keeps the whole lines of a stream cut inside its last one, and says where it was cut', async () => {
    // The fixture's 76 lines, the last cut 40 bytes into it (k6 stopped while writing it).
    const text = FIXTURE.toString('utf8');
    const lines = text.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(76);
    const before = `${lines.slice(0, 75).join('\n')}\n`;
    const cut = `${before}${(lines[75] as string).slice(0, 40)}`;
    // Line 76 starts right after the 75 whole lines and their newlines.
    const truncated = { line: 76, byte: Buffer.byteLength(before) + 1 };
    const whole = decodeK6Ndjson(before);
    expect(whole.truncated).toBeUndefined();
    const decoded = decodeK6Ndjson(cut);
    expect(decoded).toEqual({ ...whole, truncated });
    for (const size of [1, 7, 4096]) expect(await decode(Buffer.from(cut), size)).toEqual(decoded);
    // A last line without its newline that is a whole object is a line like any other.
    expect(decodeK6Ndjson(text.replace(/\n$/, ''))).toEqual(decodeK6Ndjson(text));
  });

  it('names the byte and the line of invalid UTF-8', async () => {
    const lines = FIXTURE.toString('utf8').split('\n');
    // Line 8 (an http_req_duration point) gets a lone continuation byte inside a string.
    const before = Buffer.from(`${lines.slice(0, 7).join('\n')}\n${lines[7]?.slice(0, 40)}`);
    const bytes = Buffer.concat([
      before,
      Buffer.from([0x80]),
      Buffer.from(`${lines[7]?.slice(40)}\n${lines.slice(8).join('\n')}`),
    ]);
    for (const size of [1, 100, bytes.length]) {
      const error = await failure(decode(bytes, size));
      expect(error.problem).toBe('invalid_utf8');
      expect(error.line).toBe(8);
      expect(error.message).toContain(`byte ${before.length + 1}, line 8`);
    }
  });

  it('refuses a line longer than the limit as soon as it is, naming its number', async () => {
    const lines = FIXTURE.toString('utf8').split('\n');
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      yield Buffer.from(`${lines.slice(0, 4).join('\n')}\n`);
      for (;;) {
        pulled++;
        yield Buffer.alloc(1000, 'x');
      }
    }
    const error = await failure(decodeK6NdjsonChunks(endless(), { maxLineBytes: 10_000 }));
    expect(error.problem).toBe('too_large');
    expect(error.line).toBe(5);
    expect(pulled).toBe(11);
  });

  it('answers an empty body (or a BOM and blank lines) as empty, a bad line with its number', async () => {
    for (const body of ['', '\uFEFF\n\n  \n']) {
      expect((await failure(decode(Buffer.from(body), 3))).problem).toBe('empty');
    }
    const lines = FIXTURE.toString('utf8').split('\n');
    lines[20] =
      '{"type":"Point","metric":"http_req_duration","data":{"time":"yesterday","value":1}}';
    const error = await failure(decode(Buffer.from(lines.join('\n')), 17));
    expect(error.line).toBe(21);
    expect(error.field).toBe('data.time');
  });
});
