// The API's CSV answers, one module: RFC 4180 cells (quoted when they hold a comma, a quote
// or a line break; null and absent as empty), and the tables a route sends as CSV: the
// propagation summary (one table of sections a spreadsheet can read) and a tail's causes
// (one row per cause; its last column says which latencies it counts, raw or corrected).
import { type Propagation, TAIL_CAUSE_PERCENTILES, type Tail } from '@meshbench/schema';

type Cell = string | number | null | undefined;

export const csvCell = (v: Cell): string => {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** One CSV line, its line break included. */
export const csvRow = (...cells: Cell[]): string => `${cells.map(csvCell).join(',')}\n`;

export function propagationCsv(p: Propagation): string {
  let out = csvRow('section', 'key', 'value', 'extra');
  out += csvRow('summary', 'change', p.change.id, null);
  for (const [k, v] of [
    ['count', p.count],
    ['observations', p.observations],
    ['expected', p.expected],
    ['missing', p.missing],
    ['beforeChange', p.beforeChange],
    ['repeats', p.repeats],
    ['minMs', p.minMs],
    ['meanMs', p.meanMs],
    ['maxMs', p.maxMs],
    ['withinMs', p.withinMs],
    ['withinCount', p.withinCount],
    ['withinFraction', p.withinFraction],
  ] as const) {
    out += csvRow('summary', k, v, null);
  }
  // On the corrected basis `extra` is the clock error bound (ms) of the percentile.
  for (const { p: pct, ms, clockErrorMs } of p.percentiles)
    out += csvRow('percentile', `p${pct}`, ms, clockErrorMs ?? null);
  const clock = p.clock;
  if (clock) {
    out += csvRow('clock', 'basis', clock.basis, null);
    out += csvRow('clock', 'maxClockErrorMs', clock.maxClockErrorMs, null);
    out += csvRow('clock', 'nodes', clock.nodes, null);
    out += csvRow('clock', 'correctedNodes', clock.correctedNodes, null);
    out += csvRow('clock', 'uncorrectedNodes', clock.uncorrectedNodes, null);
    // Beside raw percentiles, the corrected ones: value, then its clock error bound.
    if (clock.basis === 'raw' && clock.corrected) {
      for (const c of clock.corrected.percentiles)
        out += csvRow('corrected-percentile', `p${c.p}`, c.ms, c.clockErrorMs ?? null);
      out += csvRow('corrected', 'withinFraction', clock.corrected.withinFraction, null);
      out += csvRow('corrected', 'beforeChange', clock.corrected.beforeChange, null);
    }
  }
  for (const b of p.histogram) out += csvRow('histogram', b.fromMs, b.toMs, b.count);
  for (const c of p.cdf) out += csvRow('cdf', c.ms, c.fraction, null);
  // Added after the first sections, so that readers of those find them where they were.
  out += csvRow('stage', 'shown', p.stage, null);
  for (const s of p.stages) out += csvRow('stage', s.stage, s.count, s.observations);
  for (const c of p.coverage.points)
    out += csvRow('coverage', `${c.percent}% of ${p.coverage.of}`, c.ms, c.proxies);
  return out;
}

export function tailCsv(t: Tail): string {
  let out = csvRow(
    'cause',
    'count',
    'share',
    ...TAIL_CAUSE_PERCENTILES.map((p) => `p${p}Ms`),
    'clock',
  );
  for (const c of t.causes) {
    // never-converged has no latencies: its percentile cells stay empty.
    const ms = TAIL_CAUSE_PERCENTILES.map((p) => c.percentiles.find((v) => v.p === p)?.ms);
    out += csvRow(c.cause, c.count, c.share, ...ms, t.clock);
  }
  return out;
}
