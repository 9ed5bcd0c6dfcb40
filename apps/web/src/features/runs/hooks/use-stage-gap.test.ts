import { describe, expect, it } from 'vitest';
import { gapStages } from './use-stage-gap.ts';

const stages = (...names: string[]) => names.map((stage) => ({ stage, count: 1, observations: 1 }));

describe('gapStages', () => {
  it('prefers serving minus received', () => {
    expect(gapStages(stages('received', 'applied', 'serving'))).toEqual({
      from: 'received',
      to: 'serving',
    });
  });
  it('else the first and last stage the change has', () => {
    expect(gapStages(stages('received', 'applied'))).toEqual({ from: 'received', to: 'applied' });
    expect(gapStages(stages('acked', 'applied', 'custom'))).toEqual({
      from: 'acked',
      to: 'custom',
    });
  });
  it('none with fewer than two stages', () => {
    expect(gapStages(stages('applied'))).toBeNull();
    expect(gapStages([])).toBeNull();
  });
});
