import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { fileLines, unstoredRanges } from './events-upload.ts';

describe('unstoredRanges', () => {
  it('gives the lines no stored range covers, in order', () => {
    expect(unstoredRanges(1, 10, [])).toEqual([[1, 10]]);
    expect(unstoredRanges(1, 10, [[1, 10]])).toEqual([]);
    expect(unstoredRanges(1, 10, [[0, 3]])).toEqual([[4, 10]]);
    expect(
      unstoredRanges(5, 20, [
        [1, 4],
        [8, 9],
        [12, 12],
        [19, 30],
      ]),
    ).toEqual([
      [5, 7],
      [10, 11],
      [13, 18],
    ]);
    expect(unstoredRanges(5, 6, [[7, 9]])).toEqual([[5, 6]]);
  });
});

describe('fileLines', () => {
  const file = (text: string | Buffer) => {
    const path = join(mkdtempSync(join(tmpdir(), 'meshbench-lines-')), 'f.ndjson');
    writeFileSync(path, text);
    return path;
  };
  const lines = async (path: string) => {
    const out: string[] = [];
    for await (const line of fileLines(path)) out.push(line.toString('utf8'));
    return out;
  };

  it('gives every line with its newline, blank ones too, and a last one without', async () => {
    expect(await lines(file('a\n\nb\r\nc'))).toEqual(['a\n', '\n', 'b\r\n', 'c']);
    expect(await lines(file('a\n'))).toEqual(['a\n']);
    expect(await lines(file(''))).toEqual([]);
  });

  it('reads a line much longer than a chunk with work linear in its length', async () => {
    // 64 MiB in one line, over 64 chunks: joined once, not once per chunk. Counted in bytes
    // copied, not in time: joining once per chunk would copy about 32 times the line.
    const long = Buffer.alloc(64 * 1024 * 1024, 'x');
    long[long.length - 1] = 10;
    const input = file(Buffer.concat([Buffer.from('a\n'), long, Buffer.from('b')]));
    const concat = vi.spyOn(Buffer, 'concat');
    const got: number[] = [];
    try {
      for await (const line of fileLines(input)) got.push(line.length);
      const copied = concat.mock.calls.reduce(
        (sum, [list]) => sum + (list as readonly Uint8Array[]).reduce((n, b) => n + b.length, 0),
        0,
      );
      expect(got).toEqual([2, long.length, 1]);
      expect(copied).toBeLessThanOrEqual(long.length + 1);
    } finally {
      concat.mockRestore();
    }
  });
});
