import { describe, expect, it } from 'vitest';
import { copyTimestamp } from './metrics.repository.ts';

describe('COPY timestamps', () => {
  it('are written as toISOString writes them', () => {
    const samples = [
      0,
      1,
      999.999,
      86_399_999,
      86_400_000,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2026, 10, 22, 19, 17, 23, 7) + 0.75,
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      -1.5,
      -86_400_001,
    ];
    // Random instants from 1970 to 2100, fractional milliseconds included.
    let seed = 7;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 48271) % 2147483647;
      samples.push((seed / 2147483647) * 4_102_444_800_000 + (i % 3) * 0.5);
    }
    for (const ms of samples) {
      expect(copyTimestamp(ms), String(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
