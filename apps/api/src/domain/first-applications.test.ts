import { describe, expect, it } from 'vitest';
import { FirstApplications } from './first-applications.ts';

describe('FirstApplications', () => {
  it('counts a proxy once, at its earliest application, and the rest as repeats', () => {
    const f = new FirstApplications();
    f.add('a', 1500);
    f.add('b', 1200);
    f.add('a', 1100); // earlier than its first report: this is the first application
    f.add('a', 9000);
    const set = f.latencies(1000);
    expect([...set.sorted]).toEqual([100, 200]);
    expect(set.repeats).toBe(2);
    expect(set.observations).toBe(4);
    expect(set.sumUs).toBe(300);
  });
  it('keeps applications before the change as negative latencies', () => {
    const f = new FirstApplications();
    f.add('a', 900);
    f.add('b', 1000);
    f.add('c', 1300);
    const set = f.latencies(1000);
    expect([...set.sorted]).toEqual([-100, 0, 300]);
    expect(set.beforeChange).toBe(1);
  });
});
