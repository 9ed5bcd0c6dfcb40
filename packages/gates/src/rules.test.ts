import { describe, expect, it } from 'vitest';
import {
  breaks,
  evaluate,
  isLoadRule,
  loadBound,
  parseLoadRule,
  parseRule,
  RuleError,
} from './rules.ts';

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

describe('parseLoadRule', () => {
  it('reads data-plane rules in the grammar of the others', () => {
    expect(isLoadRule(' load.p99>+10%')).toBe(true);
    expect(isLoadRule('p99>+10%')).toBe(false);
    expect(parseLoadRule('load.p99>+10%')).toMatchObject({
      metric: 'load.p99',
      op: '>',
      value: 0.1,
      relative: true,
      points: false,
    });
    expect(parseLoadRule('LOAD.P99.9 >= 2s')).toMatchObject({
      metric: 'load.p99.9',
      value: 2000,
      relative: false,
    });
    expect(parseLoadRule('load.p50>5ms')).toMatchObject({ value: 5, relative: false });
    expect(parseLoadRule('load.rps<-5%')).toMatchObject({ op: '<', value: -0.05, relative: true });
    expect(parseLoadRule('load.rps<900')).toMatchObject({ value: 900, relative: false });
    expect(parseLoadRule('load.errors>+1pp')).toMatchObject({ value: 1, points: true });
    expect(parseLoadRule('load.errors>1%')).toMatchObject({ value: 1, relative: false });
    expect(parseLoadRule('load.p99>+10% same:mesh.version').same).toEqual(['mesh.version']);
  });
  it('says what is wrong with a bad data-plane rule', () => {
    expect(() => parseLoadRule('load.p95>+10%')).toThrow(/unknown metric "load.p95"/);
    expect(() => parseLoadRule('load.p99>+1pp')).toThrow(/percentage points/);
    expect(() => parseLoadRule('load.errors>1pp')).toThrow(/percentage points/);
    expect(() => parseLoadRule('load.p99>10%')).toThrow(/latency bound/);
    expect(() => parseLoadRule('load.rps<900ms')).toThrow(/requests a second/);
    expect(() => parseLoadRule('load.p99>5ms same:mesh.version')).toThrow(/only a rule relative/);
    expect(() => parseLoadRule('load.p99 is slow')).toThrow(/cannot read/);
  });
  it('holds a step to the baseline step plus the margin, or to the rule', () => {
    expect(loadBound(parseLoadRule('load.p99>+10%'), 800)).toBe(880);
    expect(loadBound(parseLoadRule('load.rps<-5%'), 1000)).toBe(950);
    expect(loadBound(parseLoadRule('load.errors>+1pp'), 0.5)).toBe(1.5);
    expect(loadBound(parseLoadRule('load.p99>+10%'), null)).toBeNull();
    expect(loadBound(parseLoadRule('load.p99>5ms'), null)).toBe(5);
    expect(breaks(parseLoadRule('load.rps<-5%'), 949, 950)).toBe(true);
    expect(breaks(parseLoadRule('load.rps<-5%'), 950, 950)).toBe(false);
  });
});

describe('a failed rule says why in units', () => {
  it('writes latencies as every page writes them, the share in %', () => {
    // +10 % of 136.3 ms is 149.93 ms.
    expect(evaluate(parseRule('p99>+10%'), 176.8, 136.3).reason).toBe('176.8 ms > 149.9 ms');
    expect(evaluate(parseRule('p99>1500ms'), 2000, null).reason).toBe('2.000 s > 1.500 s');
    expect(evaluate(parseRule('within1s<95%'), 90.5, null).reason).toBe('90.5 % < 95 %');
    expect(evaluate(parseRule('missing>0'), 3, null).reason).toBe('3 > 0');
    expect(evaluate(parseRule('p99>1500ms'), 1000, null).reason).toBe('ok');
  });
});
