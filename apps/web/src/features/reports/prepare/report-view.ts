// A report's frozen snapshot as the pages draw it: the runs as a comparison names them, the
// changes paired as a live comparison pairs them, and what differs between the runs.
import type { Report, ReportChange, StoredLoadResult } from '@meshbench/schema';
import { type ComparedRun, comparedRuns } from '../../compare/prepare/compared-runs.ts';
import { type Difference, whatDiffers } from '../../compare/prepare/differences.ts';
import { type ChangePair, pairChanges } from '../../compare/prepare/pair-changes.ts';

/** A frozen change, with the fields a pair and its heading need lifted to the top. */
export type ReportChangeItem = ReportChange & ReportChange['linear']['change'];

export interface ReportView {
  runs: ComparedRun[];
  pairs: ChangePair<ReportChangeItem>[];
  differences: Difference[];
  loadResults: StoredLoadResult[][];
}

export function reportView(report: Report): ReportView {
  const runs = comparedRuns(report.runs.map((r) => r.run));
  const pairs = pairChanges(
    report.runs.map((r) => r.changes.map((c) => ({ ...c.linear.change, ...c }))),
  );
  return {
    runs,
    pairs,
    differences: whatDiffers(
      report.runs.map((r) => r.run),
      pairs[0]?.changes ?? [],
    ),
    loadResults: report.runs.map((r) => r.loadResults),
  };
}
