import { describe, expect, it } from 'vitest';
import { EarliestByKey, hashBytes } from './earliest-by-key.ts';

// Written from the definitions: FNV-1a (offset basis 2166136261, prime 16777619, xor then
// multiply per byte, mod 2^32) and MurmurHash3's fmix32 (xor-shift 16, * 0x85ebca6b,
// xor-shift 13, * 0xc2b2ae35, xor-shift 16), in BigInt.
const M = 2n ** 32n;
const reference = (bytes: number[]) => {
  let h = 2166136261n;
  for (const x of bytes) h = ((h ^ BigInt(x)) * 16777619n) % M;
  h ^= h >> 16n;
  h = (h * 0x85ebca6bn) % M;
  h ^= h >> 13n;
  h = (h * 0xc2b2ae35n) % M;
  h ^= h >> 16n;
  return Number(BigInt.asIntN(32, h));
};

describe('EarliestByKey', () => {
  it('keeps the earliest value per key, through growth, as a Map of strings would', () => {
    const table = new EarliestByKey();
    const expected = new Map<string, number>();
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    // 60,000 reports of up to 20,000 keys: short, long, multi-byte, prefixes of each other.
    for (let i = 0; i < 60_000; i++) {
      const n = random(20_000);
      const key = n % 7 === 0 ? `é-${n}` : n % 5 === 0 ? `${'x'.repeat(150)}${n}` : `p${n}`;
      const value = random(1_000_000) - 500_000;
      table.addString(key, value);
      const seen = expected.get(key);
      if (seen === undefined || value < seen) expected.set(key, value);
    }
    table.addString('', 3);
    expected.set('', 3);
    expect(table.size).toBe(expected.size);
    expect(new Map(table.entries())).toEqual(expected);
    expect([...table.values()].sort((a, b) => a - b)).toEqual(
      [...expected.values()].sort((a, b) => a - b),
    );
  });

  it('reads keys from any slice of bytes, and tells keys apart that share a prefix', () => {
    const table = new EarliestByKey();
    const body = Buffer.from('..proxy-1..proxy-12..proxy-1..');
    table.add(body, 2, 9, 50); // proxy-1
    table.add(body, 11, 19, 40); // proxy-12
    table.add(body, 21, 28, 30); // proxy-1 again, earlier
    expect([...table.entries()]).toEqual([
      ['proxy-1', 30],
      ['proxy-12', 40],
    ]);
  });

  it('fingerprints a key the same from any slice, and 200,000 distinct keys distinctly', () => {
    const a = new EarliestByKey();
    const b = new EarliestByKey();
    const body = Buffer.from('..proxy-1..é-2..');
    a.add(body, 2, 9, 1);
    a.add(body, 11, 15, 2);
    b.addString('é-2', 5);
    b.addString('proxy-1', 6);
    const [p1, e2] = a.fingerprints();
    expect(b.fingerprints()).toEqual(new Float64Array([e2 as number, p1 as number]));
    const many = new EarliestByKey();
    for (let i = 0; i < 200_000; i++) many.addString(`proxy-${i}-sidecar`, i);
    const fingerprints = many.fingerprints();
    expect(fingerprints.every((f) => Number.isSafeInteger(f) && f >= 0)).toBe(true);
    expect(new Set(fingerprints).size).toBe(200_000);
    // 53 bits: each of them is 0 in some fingerprints and 1 in others (a bit that never varies
    // over 200,000 keys would be a hash that does not reach it).
    for (let bit = 0; bit < 53; bit++) {
      const ones = fingerprints.reduce((n, f) => n + (Math.floor(f / 2 ** bit) % 2), 0);
      expect([bit, ones > 0 && ones < 200_000]).toEqual([bit, true]);
    }
  });
});

describe('EarliestByKey: keys whose hashes collide', () => {
  // Found by a birthday search over proxy-NNNNNNN; the premise is checked against the definitions.
  const a = 'proxy-0049599';
  const b = 'proxy-0212382';

  it('tells apart two keys of one length and one hash by their bytes', () => {
    expect(reference([...Buffer.from(a)])).toBe(reference([...Buffer.from(b)]));
    const t = new EarliestByKey();
    expect(t.addString(a, 5)).toBe(0);
    expect(t.addString(b, 7)).toBe(1);
    expect(t.addString(b, 6)).toBe(1);
    expect(t.addString(a, 9)).toBe(-1);
    const body = Buffer.from(`${b}${a}`);
    expect(t.entryOf(body, 0, b.length)).toBe(1);
    expect(t.entryOf(body, b.length, body.length)).toBe(0);
    expect([...t.entries()]).toEqual([
      [a, 5],
      [b, 6],
    ]);
    const [fa, fb] = t.fingerprints();
    expect(fa).not.toBe(fb);
  });
});

describe('EarliestByKey: what add and entryOf return', () => {
  it('add: the entry number when kept, -1 for an equal or later value', () => {
    const t = new EarliestByKey();
    expect(t.addString('a', 10)).toBe(0);
    expect(t.addString('b', 5)).toBe(1);
    expect(t.addString('a', 10)).toBe(-1);
    expect(t.addString('a', 11)).toBe(-1);
    expect(t.addString('a', 9)).toBe(0);
    expect(t.addString('b', -1)).toBe(1);
    expect([...t.values()]).toEqual([9, -1]);
    expect(t.size).toBe(2);
  });
  it('entryOf: the entry of a key, added with value 0 when new; key(k) decodes it', () => {
    const t = new EarliestByKey();
    t.addString('proxy-é', 7);
    const body = Buffer.from('xproxy-éyz');
    // 'proxy-é' is bytes 1 to 9 (é is two bytes).
    expect(t.entryOf(body, 1, 9)).toBe(0);
    expect(t.entryOf(body, 1, 8)).toBe(1);
    expect(t.entryOf(body, 9, 11)).toBe(2);
    expect(t.entryOf(body, 9, 11)).toBe(2);
    expect(t.size).toBe(3);
    expect([...t.values()]).toEqual([7, 0, 0]);
    expect([0, 1, 2].map((k) => t.key(k))).toEqual([
      'proxy-é',
      // The first byte of é alone is not UTF-8: the replacement character.
      'proxy-\ufffd',
      'yz',
    ]);
  });
  it("keeps keys longer than the arena's doubling, and decodes them after it grew", () => {
    const t = new EarliestByKey();
    t.addString('first', 1);
    // 64 KiB to start: a 200,000-byte key is more than twice that.
    const long = 'k'.repeat(200_000);
    expect(t.addString(long, 2)).toBe(1);
    t.addString('last', 3);
    expect(t.key(0)).toBe('first');
    expect(t.key(1)).toBe(long);
    expect(t.key(2)).toBe('last');
    expect(t.addString(long, 1)).toBe(1);
    expect(new Map(t.entries()).get(long)).toBe(1);
  });
  it('entryOf finds every key among 5,000 after the table grew', () => {
    const t = new EarliestByKey();
    for (let i = 0; i < 5000; i++) t.addString(`n${i}`, i);
    for (const i of [0, 1023, 1024, 2047, 4999]) {
      const b = Buffer.from(`n${i}`);
      expect(t.entryOf(b, 0, b.length)).toBe(i);
      expect(t.key(i)).toBe(`n${i}`);
    }
    expect(t.size).toBe(5000);
  });
});

describe('hashBytes: 32-bit FNV-1a, then murmur3 fmix32', () => {
  it('matches the definitions, for the slice asked and no byte beyond', () => {
    // FNV-1a's own test vector: "a" hashes to 0xe40c292c before the finaliser.
    let f = 2166136261n;
    f = ((f ^ 97n) * 16777619n) % M;
    expect(f).toBe(0xe40c292cn);
    const body = Buffer.from('#proxy-1#');
    expect(hashBytes(body, 1, 8)).toBe(reference([...Buffer.from('proxy-1')]));
    expect(hashBytes(body, 0, 0)).toBe(reference([]));
    expect(hashBytes(Buffer.from('a'), 0, 1)).toBe(reference([97]));
  });
});
