import { describe, expect, it } from 'vitest';
import { EarliestByKey } from './earliest-by-key.ts';

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
  });
});
