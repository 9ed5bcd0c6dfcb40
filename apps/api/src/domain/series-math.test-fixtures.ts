// A stored row of a series for the series-math tests: one observation in a 1 s interval at
// t = 0, every other figure absent; a test states only what it is about.
import type { StoredRow } from './series-math.ts';

export const storedRow = (over: Partial<StoredRow>): StoredRow => ({
  tMs: 0,
  intervalMs: 1000,
  startAtMs: null,
  count: 1,
  sum: null,
  min: null,
  max: null,
  last: null,
  lastAtMs: null,
  members: null,
  sketch: null,
  ...over,
});
