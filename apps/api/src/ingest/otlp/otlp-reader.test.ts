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

// Cases the mutation run of issue 28 asked for, worked by hand.
describe('StringTable and OtlpReader, edge by edge', () => {
  it('tells apart two strings of one length whose hashes collide', () => {
    // FNV-1a 32 of "m4vl8" and "mlpd6" is the same (found by a birthday search); hashBytes
    // only mixes that state further, so they share a hash and a slot.
    const table = new StringTable();
    const b = Buffer.from('m4vl8mlpd6');
    expect(table.get(b, 0, 5)).toBe('m4vl8');
    expect(table.get(b, 5, 10)).toBe('mlpd6');
    expect(table.get(b, 0, 5)).toBe('m4vl8');
    expect(table.get(b, 5, 10)).toBe('mlpd6');
    expect(table.size).toBe(2);
  });

  it('holds 65,536 strings, then starts over with the next new one', () => {
    const table = new StringTable();
    const at = (i: number) => {
      const b = Buffer.from(`s${i}`);
      return table.get(b, 0, b.length);
    };
    for (let i = 0; i < 65_536; i++) at(i);
    expect(table.size).toBe(65_536);
    // Known strings are found without growing it.
    expect(at(123)).toBe('s123');
    expect(table.size).toBe(65_536);
    // The next new string empties it and is not kept; the one after is the first again.
    expect(at(65_536)).toBe('s65536');
    expect(table.size).toBe(0);
    expect(at(7)).toBe('s7');
    expect(table.size).toBe(1);
  });

  it('reads a string cut by the end of the buffer up to the end, interned or not', () => {
    // Length 10 announced, 3 bytes there.
    const short = new OtlpReader(Buffer.from([10, 0x61, 0x62, 0x63]), new StringTable());
    expect(short.string()).toBe('abc');
    expect(short.pos).toBe(4);
    // 64 bytes are interned, 65 are not: both read whole, and the position moves past them.
    for (const n of [64, 65]) {
      const w = protobuf.Writer.create();
      w.string('x'.repeat(n)).string('y');
      const r = new OtlpReader(Buffer.from(w.finish()), new StringTable());
      expect(r.string()).toBe('x'.repeat(n));
      expect(r.string()).toBe('y');
    }
  });

  it('reads a fixed64 that ends the buffer and refuses one that runs past it', () => {
    const bytes = Buffer.alloc(9);
    bytes.writeUInt32LE(5, 1);
    bytes.writeUInt32LE(1, 5);
    const r = new OtlpReader(bytes, new StringTable());
    r.pos = 1;
    expect(r.fixed64()).toBe(2 ** 32 + 5);
    expect(r.pos).toBe(9);
    const cut = new OtlpReader(Buffer.alloc(7), new StringTable());
    expect(() => cut.fixed64()).toThrow('index out of range: 0 + 8 > 7');
  });
});

// The survivors of the first mutation run (issue 28): what the table holds, seen by its size.
describe('StringTable, by its size', () => {
  it('interns strings of up to 64 bytes read by OtlpReader, wherever they start, and no longer ones', () => {
    const sizeAfter = (n: number, at: number) => {
      const w = protobuf.Writer.create();
      w.string('x'.repeat(n));
      const bytes = Buffer.concat([Buffer.alloc(at), Buffer.from(w.finish())]);
      const table = new StringTable();
      const r = new OtlpReader(bytes, table);
      r.pos = at;
      expect(r.string()).toBe('x'.repeat(n));
      return table.size;
    };
    expect(sizeAfter(64, 0)).toBe(1);
    expect(sizeAfter(64, 10)).toBe(1);
    expect(sizeAfter(65, 0)).toBe(0);
    expect(sizeAfter(1, 0)).toBe(1);
  });

  it('keeps its own copy of the bytes: a buffer reused by its caller changes nothing', () => {
    const table = new StringTable();
    const b = Buffer.from('abc');
    expect(table.get(b, 0, 3)).toBe('abc');
    b.write('xyz');
    expect(table.get(Buffer.from('abc'), 0, 3)).toBe('abc');
    expect(table.size).toBe(1);
  });

  it('finds a string again after starting over', () => {
    const table = new StringTable();
    for (let i = 0; i <= 65_536; i++) {
      const b = Buffer.from(`s${i}`);
      table.get(b, 0, b.length);
    }
    expect(table.size).toBe(0);
    const b = Buffer.from('again');
    expect(table.get(b, 0, 5)).toBe('again');
    expect(table.get(b, 0, 5)).toBe('again');
    expect(table.size).toBe(1);
  });
});
