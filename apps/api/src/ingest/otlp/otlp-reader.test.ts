import protobuf from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { OtlpReader, StringTable } from './otlp-reader.ts';

describe('StringTable', () => {
  it('gives one string object per distinct bytes, decoded as UTF-8', () => {
    const table = new StringTable();
    const b = Buffer.from('node|node|nodé|nod|node');
    const first = table.get(b, 0, 4);
    expect(first).toBe('node');
    expect(table.get(b, 5, 9)).toBe(first);
    expect(table.get(b, 10, 15)).toBe('nodé');
    expect(table.get(b, 16, 19)).toBe('nod'); // a prefix is another string
    expect(table.get(b, 0, 0)).toBe('');
    expect(table.size).toBe(4);
  });

  it('starts over when full, and still reads every string right', () => {
    const table = new StringTable();
    for (let i = 0; i < 70_000; i++) {
      const b = Buffer.from(`v-${i}`);
      expect(table.get(b, 0, b.length)).toBe(`v-${i}`);
    }
    expect(table.size).toBeLessThan(70_000);
  });
});

describe('OtlpReader', () => {
  it('reads strings and varints as protobufjs does, and fixed64 as Long.toNumber() gives it', () => {
    const values = [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 53 + 2, 1_772_323_200_123_456_800];
    const w = protobuf.Writer.create();
    w.string('node').string('héllo'.repeat(20)).uint32(300);
    for (const v of values) w.fixed64(v);
    const bytes = Buffer.from(w.finish());
    // The expected numbers, read by protobufjs' own reader.
    const plain = protobuf.Reader.create(bytes);
    const expected = [plain.string(), plain.string(), plain.uint32()];
    const longs: number[] = [];
    for (let i = 0; i < values.length; i++) {
      const v = plain.fixed64() as unknown as { toNumber?: (u: boolean) => number } | number;
      longs.push(typeof v === 'number' ? v : (v.toNumber?.(true) ?? Number.NaN));
    }
    expect(longs[5]).toBeGreaterThan(1.7e18); // 64 bits read, not 32
    const ours = new OtlpReader(bytes, new StringTable());
    expect([ours.string(), ours.string(), ours.uint32()]).toEqual(expected);
    for (const v of longs) expect(ours.fixed64()).toBe(v);
    expect(() => ours.fixed64()).toThrow(RangeError);
  });
});
