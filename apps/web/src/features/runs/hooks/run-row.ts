// What a row of the runs list says about a run beyond its names and its summary sentence
// (ui/run-summary.ts): its topology, its branch and commit. Pure: the table only renders these strings.
import type { Run, RunHeadline } from '@meshbench/schema';
import { formatCount, NO_VALUE } from '../../../charts/prepare/format.ts';

/** The kind of run a headline heads, as the list's column says it. */
export const HEADLINE_KIND: Record<RunHeadline['kind'], string> = {
  propagation: 'propagation',
  'scale-up': 'scale-up',
  'data-plane': 'data plane',
};

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
