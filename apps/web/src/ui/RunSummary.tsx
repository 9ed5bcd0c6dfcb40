// A run's summary sentence (run-summary.ts) as a line: the run page heads with it, reports and
// compare give one per run. A view: the headline comes in as a prop.
import type { RunHeadline } from '@meshbench/schema';
import { runSummary } from './run-summary.ts';

export function RunSummary({
  headline,
  prefix,
}: {
  headline: RunHeadline | null | undefined;
  /** Said before the sentence (compare names the run it heads). */
  prefix?: string;
}) {
  if (!headline) return null;
  return (
    <p className="run-summary" data-testid="run-summary" data-kind={headline.kind}>
      {prefix && <span className="run-summary-prefix">{prefix}: </span>}
      {runSummary(headline)}
    </p>
  );
}
