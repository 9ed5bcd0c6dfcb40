// The raw-sample helpers every line-per-request format shares. Expected values are worked by
// hand: lines as the text holds them (CRLF or LF, the last maybe unterminated), numbers >= 0.
import { describe, expect, it } from 'vitest';
import { TickCounts } from '../../domain/tick-counts.ts';
import {
  decodeSampleText,
  LineSplitter,
  RAW_PERCENTILES,
  type SampleAggregator,
  sampleNumber,
  sampleResult,
} from './raw-samples.ts';
import { thrown } from './test-fixtures.ts';

function split(...writes: string[]) {
  const lines: Array<[string, number]> = [];
  const s = new LineSplitter((line, no) => lines.push([line, no]));
  for (const w of writes) s.write(w);
  return { lines, read: s.linesRead };
}

describe('LineSplitter', () => {
  it('gives each line without its LF or CRLF, numbered from 1', () => {
    expect(split('a\r\nb\n\nc')).toEqual({
      lines: [
        ['a', 1],
        ['b', 2],
        ['', 3],
        ['c', 4],
      ],
      read: 4,
    });
  });

  it('keeps a lone CR that does not end a line, and numbers on across writes', () => {
    expect(split('a\rb\n', '\r\n', 'c\r')).toEqual({
      lines: [
        ['a\rb', 1],
        ['', 2],
        ['c', 3],
      ],
      read: 3,
    });
    expect(split('', 'x\n')).toEqual({ lines: [['x', 1]], read: 1 });
  });
});

describe('decodeSampleText', () => {
  const recorder = () => {
    const writes: string[] = [];
    const agg: SampleAggregator = {
      linesRead: 0,
      write: (t) => writes.push(t),
      end: () => ({ results: [], unmapped: ['ended'] }),
    };
    return { agg, writes };
  };

  it('writes the text without its byte order mark, then ends', () => {
    const { agg, writes } = recorder();
    expect(decodeSampleText(agg, '\uFEFFa,b\n1,2\n')).toEqual({ results: [], unmapped: ['ended'] });
    expect(writes).toEqual(['a,b\n1,2\n']);
    const plain = recorder();
    decodeSampleText(plain.agg, 'x\uFEFF');
    expect(plain.writes).toEqual(['x\uFEFF']);
  });

  it('refuses a text of white space only (a BOM and newlines) as empty', () => {
    for (const text of ['', ' \n\t', '\uFEFF\n']) {
      const { agg, writes } = recorder();
      expect(thrown(() => decodeSampleText(agg, text))).toMatchObject({
        problem: 'empty',
        message: 'the file is empty',
      });
      expect(writes).toEqual([]);
    }
  });
});

describe('sampleNumber', () => {
  it('reads a number >= 0, 0 included', () => {
    expect(sampleNumber('0', 3, 'elapsed')).toBe(0);
    expect(sampleNumber('12.5', 3, 'elapsed')).toBe(12.5);
    expect(sampleNumber('1e3', 3, 'elapsed')).toBe(1000);
  });

  it('refuses a missing, empty, negative, infinite or non-numeric cell, naming line and field', () => {
    expect(thrown(() => sampleNumber(undefined, 4, 'offset'))).toMatchObject({
      problem: 'invalid_line',
      line: 4,
      field: 'offset',
      message: 'line 4: offset is missing',
    });
    for (const text of ['', '-1', 'Infinity', 'NaN', 'abc']) {
      const e = thrown(() => sampleNumber(text, 4, 'offset'));
      expect(e).toMatchObject({ line: 4, field: 'offset' });
      expect(e.message).toBe(`line 4: offset "${text}" is not a number >= 0`);
    }
    const long = 'x'.repeat(50);
    expect(thrown(() => sampleNumber(long, 1, 'f')).message).toBe(
      `line 1: f "${'x'.repeat(40)}" is not a number >= 0`,
    );
  });
});

describe('sampleResult', () => {
  it('gives requests, rate, min, max, mean and the stored percentiles of the counts', () => {
    // Whole ms ticks 1, 2, 3 and 10.
    const counts = new TickCounts(1, { below: 1, above: 1 });
    for (const t of [1, 2, 3, 10]) counts.add(t);
    const r = sampleResult(counts, { durationMs: 2000, errors: 1, errorsByCode: { '500': 1 } });
    expect(r).toMatchObject({
      requests: 4,
      achievedRps: 2,
      minMs: 1,
      maxMs: 10,
      meanMs: 4,
      errors: 1,
      errorsByCode: { '500': 1 },
      durationMs: 2000,
    });
    expect(r.percentiles.map((p) => p.p)).toEqual(RAW_PERCENTILES);
    expect(RAW_PERCENTILES).toEqual([50, 75, 90, 95, 99, 99.9, 99.99, 100]);
    // Nearest rank: P50 the 2nd of 4, P75 the 3rd, P90 and up the 4th.
    expect(r.percentiles.map((p) => p.ms)).toEqual([2, 3, 10, 10, 10, 10, 10, 10]);
  });

  it('gives no rate without a positive duration, and nothing of empty counts', () => {
    const counts = new TickCounts(1, { below: 0, above: 1 });
    counts.add(5);
    expect(
      sampleResult(counts, { durationMs: 0, errors: 0, errorsByCode: {} }).achievedRps,
    ).toBeNull();
    expect(sampleResult(counts, { errors: 0, errorsByCode: {} })).toMatchObject({
      achievedRps: null,
      durationMs: null,
    });
    const none = sampleResult(new TickCounts(1, { below: 0, above: 1 }), {
      durationMs: 1000,
      errors: null,
      errorsByCode: {},
    });
    expect(none).toMatchObject({
      requests: 0,
      achievedRps: 0,
      minMs: null,
      maxMs: null,
      meanMs: null,
      stdDevMs: null,
    });
  });
});
