// wg/wrk 4's text report: the same lines as wrk2's (wrk2.decoder.ts reads them) but its
// percentiles are wrk's own, not an HdrHistogram's, so it is a format of its own ('wrk').
// Follows wg/wrk at a211dd5a7050b1f9e8a9870b95513060e72ac4a0 (2021-02-07): src/wrk.c
// print_stats_latency prints "  Latency Distribution" then P50, P75, P90, P99 as "%7.0Lf%%"
// ("     50%"); src/stats.c stats_percentile counts every latency in whole us and takes rank
// round(p/100 * count + 0.5) (one above the nearest rank when p/100 * count is whole), and
// src/units.c prints it with 2 decimals in its unit. Those are wrk's numbers as it printed
// them: method 'reported'. wrk2 (giltene/wrk2 at 44a94c17d8e6a0bac8559b53da76848e430cb7a7,
// src/wrk.c) prints "  Thread calibration:" for every thread (calibrate), its distribution
// as "Latency Distribution (HdrHistogram - ...)" with "%7.3Lf%%" ("50.000%"), and the
// "Detailed Percentile spectrum": a report with none of these, or with wrk's "     50%"
// lines, is wrk 4's.
import { decodeWrk2, looksLikeWrk } from './wrk2.decoder.ts';

const WRK2_MARKS =
  /Thread calibration:|\(HdrHistogram|Detailed Percentile spectrum|^\s*\d+\.\d{3}%/m;

/** A wrk report that is wrk 4's, not wrk2's. */
export function looksLikeWrk4(text: string): boolean {
  return looksLikeWrk(text) && !WRK2_MARKS.test(text);
}

export const decodeWrk = decodeWrk2;
