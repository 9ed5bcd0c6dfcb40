// How every number and time in the UI is written. One module, so that the page and the
// e2e test that checks it against the API format a value the same way.

import { fixed } from '@meshbench/schema';
import { formatDurationMs, formatDurationTick } from './duration.ts';

export { formatDurationBound, formatDurationDelta, formatDurationMs } from './duration.ts';

/** What a cell shows when the API has no value (e.g. missing without expected). */
export const NO_VALUE = '—';

/** A whole count with thousands separators: 19988 -> "19,988". */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return NO_VALUE;
  return fixed(0).format(n);
}

/**
 * Decimals for a latency in ms: enough to tell values apart near zero, none where
 * a tenth of a millisecond means nothing (tens of seconds).
 */
export function msDecimals(ms: number): number {
  const a = Math.abs(ms);
  if (a < 1) return 3;
  if (a < 10) return 2;
  if (a < 10_000) return 1;
  return 0;
}

/**
 * A latency in ms without its unit, rounded as the ms tier rounds it: "962.4". The page prints
 * durations through duration.ts; this stays for checks that want the bare figure.
 */
export function formatMsValue(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return NO_VALUE;
  const digits = msDecimals(ms);
  const text = fixed(digits).format(ms);
  // -0.0 after rounding reads as a negative latency that is not there.
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

/** A latency with its unit, in the unit that reads (duration.ts): "962.4 ms", "159.7 s". */
export function formatMs(ms: number | null | undefined): string {
  return formatDurationMs(ms);
}

/** A share as a percentage with one decimal: 0.961 -> "96.1 %". */
export function formatPercent(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return NO_VALUE;
  return `${fixed(1).format(fraction * 100)} %`;
}

/**
 * A short duration for axis ticks and labels, to three significant digits, in the units of
 * duration.ts: 200 -> "200 ms", 2500 -> "2,500 ms", 239644 -> "240 s".
 */
export function formatDuration(ms: number): string {
  return formatDurationTick(ms);
}

/** An RFC 3339 time as UTC to the second: "2026-02-01 09:59:00 UTC". */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return NO_VALUE;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** How long a run lasted, to the second: 360000 -> "6 min 0 s". */
export function formatElapsed(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return NO_VALUE;
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s} s`;
  return `${s} s`;
}
