import { describe, expect, it } from 'vitest';
import { BodyTooLargeError, splitLines } from './lines.ts';

async function collect(chunks: string[], limit?: number) {
  const out: [number, string][] = [];
  async function* gen() {
    for (const c of chunks) yield Buffer.from(c);
  }
  for await (const lines of splitLines(gen(), limit))
    for (const line of lines) out.push([line.no, line.text]);
  return out;
}

describe('splitLines', () => {
  it('joins lines split across chunks and numbers them', async () => {
    expect(await collect(['{"a":', '1}\n{"b"', ':2}\n'])).toEqual([
      [1, '{"a":1}'],
      [2, '{"b":2}'],
    ]);
  });
  it('skips blank lines but keeps counting, handles CRLF and a last line without newline', async () => {
    expect(await collect(['a\r\n\n  \nb'])).toEqual([
      [1, 'a'],
      [4, 'b'],
    ]);
  });
  it('does not split a multi-byte character across chunks', async () => {
    const bytes = Buffer.from('"é"\n');
    async function* gen() {
      yield bytes.subarray(0, 2);
      yield bytes.subarray(2);
    }
    const out = [];
    for await (const lines of splitLines(gen())) out.push(...lines.map((l) => l.text));
    expect(out).toEqual(['"é"']);
  });
  it('stops at the byte limit', async () => {
    await expect(collect(['0123456789\n', '0123456789\n'], 15)).rejects.toBeInstanceOf(
      BodyTooLargeError,
    );
  });
});
