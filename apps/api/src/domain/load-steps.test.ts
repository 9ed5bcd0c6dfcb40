import { describe, expect, it } from 'vitest';
import { type GeneratorPoint, mergeSteps } from './load-steps.ts';

const point = (id: number, generator: string, stats: Partial<GeneratorPoint>): GeneratorPoint => ({
  id,
  generator,
  mode: 'http',
  connections: 8,
  targetRps: 100,
  achievedRps: 50,
  durationMs: 1000,
  requests: null,
  errors: 0,
  errorsByCode: {},
  minMs: null,
  meanMs: null,
  maxMs: null,
  stdDevMs: null,
  labels: {},
  startedAt: null,
  hdr: null,
  ...stats,
});

describe('mergeSteps: a step of several generators', () => {
  it("pools the generators' own min, mean, max and standard deviation", () => {
    // g1 timed 1 and 3 ms (mean 2, population sd 1); g2 timed 5 and 7 ms (mean 6, sd 1).
    // All four: mean 4, sd sqrt(((1-4)^2 + (3-4)^2 + (5-4)^2 + (7-4)^2) / 4) = sqrt(5).
    const [step] = mergeSteps(
      [
        point(1, 'g1', { requests: 2, minMs: 1, meanMs: 2, maxMs: 3, stdDevMs: 1 }),
        point(2, 'g2', { requests: 2, minMs: 5, meanMs: 6, maxMs: 7, stdDevMs: 1 }),
      ],
      [],
    );
    expect(step).toMatchObject({ requests: 4, minMs: 1, meanMs: 4, maxMs: 7 });
    expect(step?.stdDevMs).toBeCloseTo(Math.sqrt(5), 12);
  });

  it('weights each mean by its requests', () => {
    // 3 requests averaging 10 ms and 1 averaging 2 ms: (30 + 2) / 4 = 8 ms.
    const [step] = mergeSteps(
      [
        point(1, 'g1', { requests: 3, minMs: 9, meanMs: 10, maxMs: 11, stdDevMs: null }),
        point(2, 'g2', { requests: 1, minMs: 2, meanMs: 2, maxMs: 2, stdDevMs: null }),
      ],
      [],
    );
    expect(step).toMatchObject({ meanMs: 8, minMs: 2, maxMs: 11, stdDevMs: null });
  });

  it("falls back to the merged histogram's where a generator lacks its own", () => {
    const [step] = mergeSteps(
      [
        point(1, 'g1', { requests: 2, minMs: 1, meanMs: 2, maxMs: 3, stdDevMs: 1 }),
        point(2, 'g2', { requests: 2 }),
      ],
      [],
    );
    // No histogram either: nothing to state.
    expect(step).toMatchObject({ minMs: null, meanMs: null, maxMs: null });
  });
});
