import { describe, expect, it } from 'vitest';
import { csvCell, csvRow } from './csv.ts';

describe('csv cells (RFC 4180)', () => {
  it('quotes a cell holding a comma, a quote or a line break, doubling its quotes', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\rhere')).toBe('"cr\rhere"');
  });

  it('leaves plain text and numbers as they are, null and absent empty', () => {
    expect(csvCell('reconnect-backoff')).toBe('reconnect-backoff');
    expect(csvCell(0.966)).toBe('0.966');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
  });

  it('ends a row with one line break', () => {
    expect(csvRow('p99', 815.2, null, 'x,y')).toBe('p99,815.2,,"x,y"\n');
  });
});
