import { describe, expect, it } from 'vitest';
import { defaultStage, stageList } from './change-stages.ts';

const row = (stage: string, count = 1, observations = 1) => ({ stage, count, observations });

describe('stageList', () => {
  it('orders the conventional stages as a change reaches them, then the others by name', () => {
    const rows = [row('zeta'), row('serving'), row('applied', 3, 4), row('alpha'), row('received')];
    expect(stageList(rows).map((s) => s.stage)).toEqual([
      'received',
      'applied',
      'serving',
      'alpha',
      'zeta',
    ]);
    // Only the three fields are kept.
    expect(stageList([{ ...row('applied', 3, 4), extra: 1 } as never])).toEqual([
      { stage: 'applied', count: 3, observations: 4 },
    ]);
  });
});

describe('defaultStage', () => {
  it('is applied when the change has it, or has no stage at all', () => {
    expect(defaultStage([])).toBe('applied');
    expect(defaultStage(stageList([row('received'), row('applied'), row('serving')]))).toBe(
      'applied',
    );
  });

  it('is the last of the other stages when the change has no applied ones', () => {
    expect(defaultStage(stageList([row('serving'), row('received')]))).toBe('serving');
    expect(defaultStage(stageList([row('zeta'), row('received')]))).toBe('zeta');
  });
});
