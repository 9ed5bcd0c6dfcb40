// What the page says about node clocks: a corrected percentile with its bound, and the line
// that says what the correction covers. Pure, so the table and the report read the same.
import type { PropagationClock } from '@meshbench/schema';
import { formatDurationBound, formatDurationMs } from './duration.ts';
import { formatCount } from './format.ts';

/** "± 1.2 ms": a clock error bound rounded up, never narrower than the API's. */
export function clockBound(errorMs: number): string {
  return `± ${formatDurationBound(errorMs, 'upper')}`;
}

/** "815.2 ms ± 1.2 ms": the bound rounded up, never narrower than the API's. */
export function withClockError(ms: number | null | undefined, errorMs: number | null | undefined) {
  const value = formatDurationMs(ms);
  if (errorMs === null || errorMs === undefined || ms === null || ms === undefined) return value;
  return `${value} ${clockBound(errorMs)}`;
}

/**
 * "Corrected for node clocks: each corrected percentile within ± 1.2 ms max clock error;
 * uncorrected for 12 of 1,000 nodes." Null when the run has no clock data.
 */
export function correctionNote(clock: PropagationClock | null | undefined): string | null {
  if (clock?.available && clock.pending)
    return 'Clock-corrected figures are being computed after new events: reload in a moment.';
  if (!clock?.available || clock.maxClockErrorMs === null) return null;
  const bound = `each corrected percentile within ± ${formatDurationBound(clock.maxClockErrorMs, 'upper')} max clock error`;
  const uncorrected = clock.uncorrectedNodes ?? 0;
  const cover =
    uncorrected > 0
      ? `uncorrected for ${formatCount(uncorrected)} of ${formatCount(clock.nodes)} nodes (no clock reports: their latencies stay raw)`
      : `all ${formatCount(clock.nodes)} nodes corrected`;
  return `Corrected: each node's clock offset, from its clock reports, taken out; ${bound}; ${cover}.`;
}
