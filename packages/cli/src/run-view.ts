// What `meshbench watch` and `meshbench run show` print of a run: pure text from a run's
// views (a live state, or the stored views read the same way), so the two end on the same
// lines. Every percentile says whether it is exact or what bounds it.
import type { PercentileAccuracy, RunLive } from '@meshbench/schema';

/** The views both commands print from: a live state without its version. */
export type RunView = Omit<RunLive, 'version' | 'open'>;

const BAR = 24;

/** `[#########---------------]` for done of total (a total of 0 is an empty bar). */
export function progressBar(done: number, total: number, width = BAR): string {
  const filled = total > 0 ? Math.min(width, Math.floor((done / total) * width)) : 0;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

const ms = (v: number) => `${Number(v.toPrecision(6))} ms`;
const pct = (done: number, total: number) =>
  total > 0 ? `${((done / total) * 100).toFixed(1)} %` : '-';

/** How a percentile was obtained, in a few words. */
export function mark(a: Partial<PercentileAccuracy> | undefined): string {
  if (!a || a.exact === undefined) return '';
  if (a.exact) return 'exact';
  if (a.relativeError != null) return `±${Number((a.relativeError * 100).toPrecision(3))} %`;
  if (a.lower !== undefined || a.upper !== undefined)
    return `in [${a.lower ?? '-∞'}, ${a.upper ?? '∞'}] ms`;
  return `estimate (${a.method})`;
}

const percentile = (
  list: { p: number; ms: number; accuracy?: Partial<PercentileAccuracy> }[],
  p: number,
) => {
  const found = list.find((x) => x.p === p);
  if (!found) return `P${p} -`;
  const how = mark(found.accuracy ?? (found as Partial<PercentileAccuracy>));
  return `P${p} ${ms(found.ms)}${how ? ` (${how})` : ''}`;
};

/** The run's numbers now: per change applied/expected, P50 and P99; phases; stages' RPS. */
export function runLines(view: RunView): string[] {
  const lines: string[] = [];
  for (const { change, summary } of view.propagation) {
    if (!summary) {
      lines.push(`change ${change}: no observations yet`);
      continue;
    }
    const total = summary.expected ?? summary.count;
    lines.push(
      `change ${change} ${summary.stage} ${summary.count}/${summary.expected ?? '?'} ${progressBar(summary.count, total)} ${pct(summary.count, total)}  ${percentile(summary.percentiles, 50)}  ${percentile(summary.percentiles, 99)}`,
    );
  }
  if (view.changesLeftOut > 0) lines.push(`(${view.changesLeftOut} more changes not shown)`);
  if (view.churn) {
    // Every change of a churn run together: first applications over expected, pooled ranks.
    const { pooled } = view.churn;
    const total = pooled.expected ?? pooled.count;
    lines.push(
      `all ${view.churn.changes.length} changes ${view.churn.stage} ${pooled.count}/${pooled.expected ?? '?'} ${progressBar(pooled.count, total)} ${pct(pooled.count, total)}  pooled ${percentile(pooled.percentiles, 50)}  ${percentile(pooled.percentiles, 99)}`,
    );
  }
  for (const phase of view.timeline.phases)
    lines.push(
      `phase ${phase.phase} ${phase.count}/${phase.total} ${progressBar(phase.count, phase.total)} ${pct(phase.count, phase.total)}`,
    );
  for (const stage of view.stages?.stages ?? [])
    lines.push(
      `stage ${stage.mode} c=${stage.connections ?? '-'} target ${stage.targetRps ?? '-'} rps: ${stage.achievedRps === null ? '-' : Number(stage.achievedRps.toPrecision(6))} rps  ${percentile(stage.percentiles, 50)}  ${percentile(stage.percentiles, 99)}`,
    );
  if ((view.stages?.stages.length ?? 0) === 0)
    for (const r of view.results)
      lines.push(
        `load ${r.mode} c=${r.connections ?? '-'} target ${r.targetRps ?? '-'} rps: ${r.achievedRps} rps  ${percentile(r.percentiles, 50)}  ${percentile(r.percentiles, 99)}`,
      );
  if (lines.length === 0) lines.push('nothing stored yet');
  return lines;
}

/** The header line: which run, where it stands. */
export function runHeading(view: RunView): string {
  const r = view.run;
  return `run ${r.slug} ${r.mesh.name}${r.mesh.version ? `@${r.mesh.version}` : ''} ${r.benchmark}/${r.scenario}: ${r.status}${r.finishedAt ? ` at ${r.finishedAt}` : ''}`;
}

/** What `run show` prints, and `watch` at the end. */
export function runSummary(view: RunView): string {
  return [runHeading(view), ...runLines(view)].join('\n');
}
