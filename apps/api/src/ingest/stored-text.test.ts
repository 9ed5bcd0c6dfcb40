import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { findBadValue, invalidUtf8At, textProblem } from './stored-text.ts';

describe('textProblem', () => {
  it('refuses NUL and lone surrogates, and takes pairs, accents and emoji', () => {
    expect(textProblem('a\u0000b')).toMatch(/NUL/);
    expect(textProblem('\ud800')).toMatch(/surrogate/);
    expect(textProblem('x\udfff')).toMatch(/surrogate/);
    expect(textProblem('\udc00\ud800')).toMatch(/surrogate/); // a pair in the wrong order
    expect(textProblem('Zürich 😀 \ud83d\ude00')).toBeUndefined();
    expect(textProblem('')).toBeUndefined();
  });
});

describe('findBadValue', () => {
  it('names the path of the first bad value, keys included', () => {
    expect(findBadValue({ a: 'ok', labels: { k: 'v\u0000' } })).toEqual({
      path: 'labels.k',
      reason: expect.stringMatching(/NUL/),
    });
    expect(findBadValue(JSON.parse('{"attrs":{"__proto__":{"x":1}}}'))).toEqual({
      path: 'attrs.__proto__',
      reason: 'is a key that is not allowed',
    });
    expect(findBadValue({ list: [1, 2, JSON.parse('1e400')] })?.path).toBe('list.2');
    expect(findBadValue({ 'k\ud800': 1 })?.reason).toMatch(/key .*surrogate/);
    expect(findBadValue({ a: [{ b: null, c: true, d: -0, e: 1e308 }] })).toBeUndefined();
  });

  it('refuses nesting past 100 levels, 100,000 deep included, without overflowing the stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(findBadValue(deep)?.reason).toMatch(/nests deeper than 100 levels/);
    const objects = JSON.parse(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
    expect(findBadValue(objects)?.path).toMatch(/^a\.a\.a/);
    const at = (n: number) => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`);
    expect(findBadValue(at(100))).toBeUndefined();
    expect(findBadValue(at(101))?.reason).toMatch(/deeper/);
    // Depth first, in order: the first bad value wins over a later one.
    expect(findBadValue([['ok', 'a\u0000'], 'b\u0000'])?.path).toBe('0.1');
  });
});

describe('invalidUtf8At', () => {
  it('finds the first bad byte', () => {
    const b = (...bytes: number[]) => Uint8Array.from(bytes);
    expect(invalidUtf8At(Buffer.from('plain ascii'))).toBe(-1);
    expect(invalidUtf8At(Buffer.from('Zürich 😀'))).toBe(-1);
    expect(invalidUtf8At(b(0x61, 0xc3, 0x28))).toBe(1); // bad continuation
    expect(invalidUtf8At(b(0x61, 0xff))).toBe(1);
    expect(invalidUtf8At(b(0xc0, 0xaf))).toBe(0); // overlong '/'
    expect(invalidUtf8At(b(0xed, 0xa0, 0x80))).toBe(0); // a surrogate, encoded
    expect(invalidUtf8At(b(0xf4, 0x90, 0x80, 0x80))).toBe(0); // past U+10FFFF
    expect(invalidUtf8At(b(0x61, 0xe2, 0x82))).toBe(1); // cut short
    expect(invalidUtf8At(b(0x61, 0xe2, 0x82, 0xac), 0, 3)).toBe(1); // cut short by `end`
  });

  it("agrees with Node's own check on 20,000 random byte strings", () => {
    let seed = 42;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    const samples = ['a', 'é', '€', '😀'].map((s) => [...Buffer.from(s)]);
    for (let n = 0; n < 20_000; n++) {
      const bytes: number[] = [];
      const length = next() % 12;
      for (let i = 0; i < length; i++) {
        if (next() % 3 === 0) bytes.push(next() % 256);
        else bytes.push(...(samples[next() % samples.length] as number[]));
      }
      const buf = Buffer.from(bytes);
      expect(invalidUtf8At(buf) === -1, buf.toString('hex')).toBe(isUtf8(buf));
    }
  });
});
