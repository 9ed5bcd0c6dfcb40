// How a duration is written wherever the page prints one: the rule lives in
// @meshbench/schema's duration.ts, which the API's gate and alert reasons use too, so that a
// time reads alike on every page and in every message. Exports (CSV, JSON) keep milliseconds.
export {
  type DurationUnit,
  durationAxisUnit,
  durationTickFormatter,
  durationUnit,
  formatDurationBound,
  formatDurationDelta,
  formatDurationMs,
  formatDurationRange,
  formatDurationTick,
  MS_LIMIT,
  S_LIMIT,
} from '@meshbench/schema';
