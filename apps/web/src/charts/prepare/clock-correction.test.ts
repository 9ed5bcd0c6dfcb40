import type { PropagationClock } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { correctionNote, withClockError } from './clock-correction.ts';

const clock: PropagationClock = {
  basis: 'raw',
  available: true,
  maxClockErrorMs: 1.04,
  nodes: 10_000,
  correctedNodes: 9_688,
  uncorrectedNodes: 312,
  corrected: null,
};

describe('clock correction text', () => {
  it('writes a corrected percentile with its bound rounded up', () => {
    // 1.04 ms rounds up at the ms tier's two decimals (below 10 ms): 1.04; 1.041 -> 1.05.
    expect(withClockError(815.2, 1.04)).toBe('815.2 ms ± 1.04 ms');
    expect(withClockError(815.2, 1.041)).toBe('815.2 ms ± 1.05 ms');
    expect(withClockError(815.2, undefined)).toBe('815.2 ms');
  });

  it('says how many nodes stay uncorrected, or nothing without clock data', () => {
    expect(correctionNote(clock)).toBe(
      "Corrected: each node's clock offset, from its clock reports, taken out; each corrected percentile within ± 1.04 ms max clock error; uncorrected for 312 of 10,000 nodes (no clock reports: their latencies stay raw).",
    );
    expect(correctionNote({ ...clock, uncorrectedNodes: 0 })).toContain(
      'all 10,000 nodes corrected',
    );
    expect(correctionNote({ ...clock, available: false, maxClockErrorMs: null })).toBeNull();
    expect(correctionNote(undefined)).toBeNull();
  });
  it('says the corrected figures are being computed while they are', () => {
    expect(
      correctionNote({
        basis: 'raw',
        available: true,
        pending: true,
        maxClockErrorMs: null,
        nodes: null,
        correctedNodes: null,
        uncorrectedNodes: null,
        corrected: null,
      }),
    ).toBe('Clock-corrected figures are being computed after new events: reload in a moment.');
  });
});
