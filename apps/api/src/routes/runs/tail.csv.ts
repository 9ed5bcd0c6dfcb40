// The causes table of a change's tail as CSV, one row per cause; its last column says which
// latencies it counts (raw, or corrected for the nodes' clocks).
import { TAIL_CAUSE_PERCENTILES, type Tail } from '@meshbench/schema';

const cell = (v: string | number | null | undefined) => {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
const row = (...cells: (string | number | null | undefined)[]) => `${cells.map(cell).join(',')}\n`;

export function tailCsv(t: Tail): string {
  let out = row(
    'cause',
    'count',
    'share',
    ...TAIL_CAUSE_PERCENTILES.map((p) => `p${p}Ms`),
    'clock',
  );
  for (const c of t.causes) {
    // never-converged has no latencies: its percentile cells stay empty.
    const ms = TAIL_CAUSE_PERCENTILES.map((p) => c.percentiles.find((v) => v.p === p)?.ms);
    out += row(c.cause, c.count, c.share, ...ms, t.clock);
  }
  return out;
}
