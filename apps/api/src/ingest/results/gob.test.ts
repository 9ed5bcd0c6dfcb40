import { describe, expect, it } from 'vitest';
import { GobError, GobReader, type GobValue } from './gob.ts';

// The encoded example of golang/go src/encoding/gob/doc.go (0f89b6cc42ec163d0f8678d8280af37429c53036):
// `type Point struct {X, Y int}` and Point{22, 33}, then the same value sent again.
const POINT = Buffer.from(
  '1fff810301010550 6f696e7401ff8200 0102010158010400 0101590104000000 07ff82012c014200'.replace(
    / /g,
    '',
  ),
  'hex',
);
const AGAIN = Buffer.from('07ff82012c014200', 'hex');

function readAll(chunks: Uint8Array[]) {
  const values: { value: GobValue; type: string }[] = [];
  const reader = new GobReader(1 << 20, (value, type) => values.push({ value, type }));
  for (const c of chunks) reader.write(c);
  return { values, pending: reader.pending };
}

describe('gob stream reader', () => {
  it("reads upstream's encoded example: Point{22, 33}, twice", () => {
    const { values, pending } = readAll([Buffer.concat([POINT, AGAIN])]);
    expect(pending).toBe(false);
    expect(values).toEqual([
      { value: { X: 22, Y: 33 }, type: 'Point' },
      { value: { X: 22, Y: 33 }, type: 'Point' },
    ]);
  });

  it('reads the same stream given a byte at a time', () => {
    const whole = Buffer.concat([POINT, AGAIN]);
    const { values } = readAll([...whole].map((b) => Uint8Array.of(b)));
    expect(values.map((v) => v.value)).toEqual([
      { X: 22, Y: 33 },
      { X: 22, Y: 33 },
    ]);
  });

  it('says a stream ending inside a message is unfinished', () => {
    expect(readAll([POINT.subarray(0, POINT.length - 2)]).pending).toBe(true);
  });

  it('refuses a value of a type never defined, and a field past the struct', () => {
    expect(() => readAll([AGAIN])).toThrow(GobError);
    expect(() => readAll([AGAIN])).toThrow(/type id 65, which the stream never defined/);
    // Field delta 3: field 2 of a struct of two.
    const third = Buffer.from('07ff82032c014200', 'hex');
    expect(() => readAll([POINT.subarray(0, 32), third])).toThrow(/field 2 of Point/);
  });

  it('reads signed integers as doc.go encodes them (-129 as FE 01 01)', () => {
    // Point{X: -129}: value message ff82 01 fe0101 00, 7 bytes.
    const value = Buffer.from('07ff8201fe010100', 'hex');
    const { values } = readAll([POINT.subarray(0, 32), value]);
    expect(values[0]?.value).toEqual({ X: -129 });
  });
});
