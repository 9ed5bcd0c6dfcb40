// How the load-result tables write their numbers: cores, MiB, ratios and rates.
import { formatRps } from './load-results.ts';

const sig3 = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
const fixed1 = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});

/** Cores to three significant digits: 0.499799 -> "0.5", 2.080446 -> "2.08". */
export function formatCores(cores: number | null | undefined): string {
  return cores === null || cores === undefined || !Number.isFinite(cores)
    ? '—'
    : sig3.format(cores);
}

/** MiB with one decimal: 64.5 -> "64.5". */
export function formatMiB(mib: number | null | undefined): string {
  return mib === null || mib === undefined || !Number.isFinite(mib) ? '—' : fixed1.format(mib);
}

/** A ratio such as P99 / P50: 2.6135 -> "2.6×". */
export function formatRatio(ratio: number | null | undefined): string {
  return ratio === null || ratio === undefined || !Number.isFinite(ratio)
    ? '—'
    : `${fixed1.format(ratio)}×`;
}

/** A rate in the tables: "1,000", "998.22". */
export function formatRpsCell(rps: number | null | undefined): string {
  return rps === null || rps === undefined || !Number.isFinite(rps) ? '—' : formatRps(rps);
}

/** A rate in % of requests: small rates keep their digits (0.007 %). */
/** An error-rate axis tick: "0.005 %" (a no-break space, so the tick never wraps). */
export const formatErrorRateTick = (percent: number) => `${percent}\u00a0%`;

export function formatErrorRate(percent: number): string {
  if (!Number.isFinite(percent)) return '—';
  if (percent === 0) return '0 %';
  const digits = percent >= 10 ? 1 : percent >= 1 ? 2 : 3;
  return `${Number(percent.toFixed(digits)).toLocaleString('en-US', { maximumFractionDigits: digits })} %`;
}
