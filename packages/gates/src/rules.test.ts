import { describe, expect, it } from 'vitest';
import { evaluate, parseRule, RuleError } from './rules.ts';

describe('parseRule', () => {
  it('reads relative, absolute and share rules', () => {
    expect(parseRule('p99>+10%')).toMatchObject({
      metric: 'p99',
      op: '>',
      value: 0.1,
      relative: true,
    });
    expect(parseRule('p50 > -5%')).toMatchObject({ value: -0.05, relative: true });
    expect(parseRule('within1s<95%')).toMatchObject({
      metric: 'within1s',
      op: '<',
      value: 95,
      relative: false,
    });
    expect(parseRule('p99>1500ms')).toMatchObject({ value: 1500, relative: false });
    expect(parseRule('p99.9>=2s')).toMatchObject({ metric: 'p99.9', op: '>=', value: 2000 });
    expect(parseRule('missing>0')).toMatchObject({ metric: 'missing', value: 0 });
  });
  it('reads what a relative rule pins, after it', () => {
    expect(parseRule('p99>+10%').same).toEqual([]);
    expect(parseRule('p99>+10% same:mesh.version')).toMatchObject({
      metric: 'p99',
      value: 0.1,
      relative: true,
      same: ['mesh.version'],
    });
    expect(parseRule(' p99 > +10 %  SAME:Mesh.Version ').same).toEqual(['mesh.version']);
    expect(() => parseRule('p99>+10% same:platform')).toThrow(/cannot pin "platform"/);
    expect(() => parseRule('p99>1500ms same:mesh.version')).toThrow(/only a rule relative/);
    expect(() => parseRule('same:mesh.version')).toThrow(/cannot read/);
  });
  it('says what is wrong with a bad rule', () => {
    expect(() => parseRule('p98>+10%')).toThrow(/unknown metric "p98"/);
    expect(() => parseRule('p99>+10ms')).toThrow(RuleError);
    expect(() => parseRule('p99>10%')).toThrow(/latency bound/);
    expect(() => parseRule('p99 is slow')).toThrow(/cannot read/);
  });
});

describe('evaluate', () => {
  it('fails a relative rule past the baseline by more than the margin', () => {
    // baseline 800 ms: +10 % allows up to 880 ms.
    expect(evaluate(parseRule('p99>+10%'), 881, 800)).toMatchObject({ failed: true, bound: 880 });
    expect(evaluate(parseRule('p99>+10%'), 880, 800)).toMatchObject({ failed: false });
  });
  it('fails an absolute share rule', () => {
    expect(evaluate(parseRule('within1s<95%'), 94.9, null).failed).toBe(true);
    expect(evaluate(parseRule('within1s<95%'), 96.6, null).failed).toBe(false);
  });
  it('fails when there is no value or no baseline to compare with', () => {
    expect(evaluate(parseRule('p99>+10%'), 500, null)).toMatchObject({
      failed: true,
      reason: 'no baseline to compare with',
    });
    expect(evaluate(parseRule('p99>1s'), null, 500)).toMatchObject({
      failed: true,
      reason: 'no value for this run',
    });
  });
});
