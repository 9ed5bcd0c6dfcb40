// feedLineChunks: bytes as they arrive, to a sink in runs of whole lines. Expected values are
// worked by hand from its contract: what the sink receives, the byte count, and the errors'
// line and byte (1-based, counted over the whole body).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { feedLineChunks, type LineSink } from './line-chunks.ts';
import type { ResultFileError } from './result-file-error.ts';
import { publicFixturesDir } from './test-fixtures.ts';

class Recorder implements LineSink {
  readonly writes: string[] = [];
  linesRead = 0;
  write(text: string): void {
    this.writes.push(text);
    this.linesRead += text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  }
}

async function* chunksOf(parts: Array<string | number[]>): AsyncIterable<Uint8Array> {
  for (const p of parts)
    yield typeof p === 'string' ? new TextEncoder().encode(p) : Uint8Array.from(p);
}

const LIMITS = { maxLineBytes: 1024 };

async function rejected(p: Promise<unknown>): Promise<ResultFileError> {
  try {
    await p;
  } catch (e) {
    return e as ResultFileError;
  }
  throw new Error('did not reject');
}

describe('feedLineChunks', () => {
  it('writes whole lines, joining a line cut across chunks, and the unfinished last at the end', async () => {
    const sink = new Recorder();
    const fed = await feedLineChunks(chunksOf(['ab', 'c\nde', 'f\n', 'g', 'h']), sink, LIMITS);
    expect(sink.writes).toEqual(['abc\n', 'def\n', 'gh']);
    expect(fed).toBe(10);
  });

  it('keeps nothing back when a chunk ends at a newline', async () => {
    const sink = new Recorder();
    expect(await feedLineChunks(chunksOf(['a\nb\n', 'c\n']), sink, LIMITS)).toBe(6);
    expect(sink.writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('refuses a line longer than maxLineBytes as soon as it is, naming its line', async () => {
    const limits = { maxLineBytes: 3 };
    // Exactly 3 bytes held: accepted.
    expect(await feedLineChunks(chunksOf(['ab', 'c']), new Recorder(), limits)).toBe(3);
    const held = await rejected(feedLineChunks(chunksOf(['ab', 'cd']), new Recorder(), limits));
    expect(held).toMatchObject({ problem: 'too_large', line: 1 });
    expect(held.message).toBe('line 1 is longer than 3 bytes');
    // What follows the last newline of a chunk: line 2, after "a\n" was written.
    const rest = await rejected(
      feedLineChunks(chunksOf(['a\nbcde']), new Recorder(), {
        maxLineBytes: 3,
        lineSetting: 'X_MAX',
      }),
    );
    expect(rest).toMatchObject({ problem: 'too_large', line: 2 });
    expect(rest.message).toBe('line 2 is longer than 3 bytes, the limit of a line set by X_MAX');
    expect(
      await feedLineChunks(chunksOf(['a\nbcd', '\n']), new Recorder(), { maxLineBytes: 3 }),
    ).toBe(6);
  });

  it('refuses a byte that is not UTF-8, naming its byte and line in the whole body', async () => {
    // "a\nb" then 0xFF: the 4th byte, on line 2.
    const first = await rejected(
      feedLineChunks(chunksOf([[0x61, 0x0a, 0x62, 0xff, 0x0a]]), new Recorder(), LIMITS),
    );
    expect(first).toMatchObject({ problem: 'invalid_utf8', line: 2 });
    expect(first.message).toBe(
      'the file is not valid UTF-8 (byte 4, line 2); result files are UTF-8 text',
    );
    // After 4 good bytes (2 lines): the bad one is byte 4 + 2 = 6, on line 3 + 1 = 4.
    const later = await rejected(
      feedLineChunks(chunksOf(['x\ny\n', [0x0a, 0xc3, 0x0a]]), new Recorder(), LIMITS),
    );
    expect(later).toMatchObject({ problem: 'invalid_utf8', line: 4 });
    expect(later.message).toBe(
      'the file is not valid UTF-8 (byte 6, line 4); result files are UTF-8 text',
    );
    // In the unfinished last line.
    const tail = await rejected(
      feedLineChunks(chunksOf([[0x61, 0x0a, 0xff]]), new Recorder(), LIMITS),
    );
    expect(tail).toMatchObject({ problem: 'invalid_utf8', line: 2 });
  });

  it('says a binary simulation.log sent as text is one, only when it opens the body', async () => {
    // gatling/gatling's own binary log (fixtures/public/gatling/PROVENANCE.md): not UTF-8.
    const binary = [
      ...readFileSync(join(publicFixturesDir, 'gatling/known_stats-binary-simulation.log')),
    ];
    const limits = { maxLineBytes: 1 << 20 };
    const first = await rejected(feedLineChunks(chunksOf([binary]), new Recorder(), limits));
    expect(first.problem).toBe('invalid_utf8');
    expect(first.message).toContain('it is a binary simulation.log (Gatling 3.13 or later)');
    // The same bytes after a first line of text: no longer a simulation.log's opening.
    const later = await rejected(feedLineChunks(chunksOf(['x\n', binary]), new Recorder(), limits));
    expect(later.problem).toBe('invalid_utf8');
    expect(later.message).not.toContain('simulation.log');
  });

  it('refuses a body of white space only, a byte order mark included, as empty', async () => {
    for (const parts of [[' \n', '\t\n'], [[0xef, 0xbb, 0xbf]], []] as Array<
      Array<string | number[]>
    >) {
      const e = await rejected(feedLineChunks(chunksOf(parts), new Recorder(), LIMITS));
      expect(e).toMatchObject({ problem: 'empty', message: 'the file is empty' });
    }
    // Content anywhere, even before blank lines at the end, is not empty.
    expect(await feedLineChunks(chunksOf(['x\n', ' \n']), new Recorder(), LIMITS)).toBe(4);
    expect(await feedLineChunks(chunksOf(['\n', 'x']), new Recorder(), LIMITS)).toBe(2);
  });
});
