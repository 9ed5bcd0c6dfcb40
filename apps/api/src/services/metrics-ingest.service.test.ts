import { describe, expect, it } from 'vitest';
import type { MetricRecord } from '../domain/metric-record.ts';
import type { RunWindow } from '../repositories/runs.repository.ts';
import { inWindow } from './metrics-ingest.service.ts';

const run: RunWindow = {
  id: 'r',
  slug: 's',
  projectId: 'p',
  environment: null,
  startedMs: 10_000,
  finishedMs: 20_000,
  topology: {},
};
const at = (tMs: number, intervalMs: number) => ({ tMs, intervalMs }) as MetricRecord;

describe("a point in a run's window", () => {
  it('takes an interval that overlaps the window, and not one that only touches it', () => {
    expect(inWindow(run, at(5_000, 5_000))).toBe(false); // [5 s, 10 s]: ends as the run starts
    expect(inWindow(run, at(5_000, 5_001))).toBe(true);
    expect(inWindow(run, at(20_000, 1_000))).toBe(false); // starts as the run finishes
    expect(inWindow(run, at(19_999, 1_000))).toBe(true);
  });
  it('takes an instant from the start to the finish, both included', () => {
    expect(inWindow(run, at(10_000, 0))).toBe(true);
    expect(inWindow(run, at(20_000, 0))).toBe(true);
    expect(inWindow(run, at(9_999, 0))).toBe(false);
    expect(inWindow({ ...run, finishedMs: null }, at(1e12, 0))).toBe(true);
  });
});
