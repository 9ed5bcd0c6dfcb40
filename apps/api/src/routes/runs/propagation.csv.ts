// The propagation summary as CSV: one table of sections a spreadsheet can read.
import type { Propagation } from '@meshbench/schema';

const cell = (v: string | number | null) => {
  if (v === null) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
const row = (...cells: (string | number | null)[]) => `${cells.map(cell).join(',')}\n`;

export function propagationCsv(p: Propagation): string {
  let out = row('section', 'key', 'value', 'extra');
  out += row('summary', 'change', p.change.id, null);
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
    out += row('summary', k, v, null);
  }
  // On the corrected basis `extra` is the clock error bound (ms) of the percentile.
  for (const { p: pct, ms, clockErrorMs } of p.percentiles)
    out += row('percentile', `p${pct}`, ms, clockErrorMs ?? null);
  const clock = p.clock;
  if (clock) {
    out += row('clock', 'basis', clock.basis, null);
    out += row('clock', 'maxClockErrorMs', clock.maxClockErrorMs, null);
    out += row('clock', 'nodes', clock.nodes, null);
    out += row('clock', 'correctedNodes', clock.correctedNodes, null);
    out += row('clock', 'uncorrectedNodes', clock.uncorrectedNodes, null);
    // Beside raw percentiles, the corrected ones: value, then its clock error bound.
    if (clock.basis === 'raw' && clock.corrected) {
      for (const c of clock.corrected.percentiles)
        out += row('corrected-percentile', `p${c.p}`, c.ms, c.clockErrorMs ?? null);
      out += row('corrected', 'withinFraction', clock.corrected.withinFraction, null);
      out += row('corrected', 'beforeChange', clock.corrected.beforeChange, null);
    }
  }
  for (const b of p.histogram) out += row('histogram', b.fromMs, b.toMs, b.count);
  for (const c of p.cdf) out += row('cdf', c.ms, c.fraction, null);
  // Added after the first sections, so that readers of those find them where they were.
  out += row('stage', 'shown', p.stage, null);
  for (const s of p.stages) out += row('stage', s.stage, s.count, s.observations);
  for (const c of p.coverage.points)
    out += row('coverage', `${c.percent}% of ${p.coverage.of}`, c.ms, c.proxies);
  return out;
}
