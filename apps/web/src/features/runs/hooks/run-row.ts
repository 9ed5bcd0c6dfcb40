// What a row of the runs list says about a run beyond its names: its headline number, its
// topology, its branch and commit. Pure: the table only renders these strings.
import type { Run, RunHeadline } from '@meshbench/schema';
import {
  formatCount,
  formatElapsed,
  formatMs,
  formatPercent,
  NO_VALUE,
} from '../../../charts/prepare/format.ts';

/** The kind of run a headline heads, as the list's column says it. */
export const HEADLINE_KIND: Record<RunHeadline['kind'], string> = {
  propagation: 'propagation',
  'scale-up': 'scale-up',
  'data-plane': 'data plane',
};

/** A threshold as people say it: "1 s", not "1,000.0 ms". */
const withinText = (ms: number) =>
  ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : formatMs(ms);

/**
 * "P99 815.2 ms · 96.6 % ≤ 1 s"; a churn run "P99 5,295.6 ms pooled over 20 changes · 71.3 %
 * ≤ 1 s · worst c7 7,862.4 ms"; "all 1,000 joined in 51 min 0 s" (or "312 of 1,000 joined"); "P99
 * 4.24 ms at 3,000 rps" ("…, merged over 3 generators" when the step had several).
 */
export function headlineText(h: RunHeadline): string {
  switch (h.kind) {
    case 'propagation': {
      const p99 = `P99 ${h.p99 ? formatMs(h.p99.ms) : NO_VALUE}`;
      const within = `${formatPercent(h.withinFraction)} ≤ ${withinText(h.withinMs)}`;
      if (h.summary === 'pooled') {
        const worst = h.worst ? ` · worst ${h.worst.changeId} ${formatMs(h.worst.p99Ms)}` : '';
        return `${p99} pooled over ${formatCount(h.changes)} changes · ${within}${worst}`;
      }
      return `${p99} · ${within}`;
    }
    case 'scale-up':
      return h.timeToAllMs === null
        ? `${formatCount(h.count)} of ${formatCount(h.total)} ${h.phase}`
        : `all ${formatCount(h.total)} ${h.phase} in ${formatElapsed(h.timeToAllMs)}`;
    case 'data-plane': {
      const rate = h.rps === null ? '' : ` at ${formatCount(h.rps)} rps`;
      const config = h.config === null ? '' : ` (${h.config})`;
      const merged = h.generators === null ? '' : `, merged over ${h.generators} generators`;
      return `P99 ${h.p99 ? formatMs(h.p99.ms) : NO_VALUE}${rate}${config}${merged}`;
    }
  }
}

/** "10 nodes · 200 instances": what the run ran on, or none. */
export function topologyText(run: Pick<Run, 'topology'>): string {
  const t = run.topology;
  const parts = [
    t.nodes !== undefined ? `${formatCount(t.nodes)} nodes` : null,
    t.instances !== undefined ? `${formatCount(t.instances)} instances` : null,
  ].filter((p): p is string => p !== null);
  return parts.length > 0 ? parts.join(' · ') : NO_VALUE;
}

/** The labels runners name the commit with (the CLI writes `sha`). */
const COMMIT_LABELS = ['sha', 'commit', 'git_sha', 'revision'];

/** The run's commit, short (12 characters, as git shows it), and whole for a tooltip. */
export function commitOf(run: Pick<Run, 'labels'>): { short: string; full: string } | null {
  for (const key of COMMIT_LABELS) {
    const full = run.labels[key];
    if (full) return { short: /^[0-9a-f]{13,}$/i.test(full) ? full.slice(0, 12) : full, full };
  }
  return null;
}
