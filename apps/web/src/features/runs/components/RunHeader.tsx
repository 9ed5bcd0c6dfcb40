// The top of a run page: the run's facts headed by its summary sentence, with the button that
// shares it as a report.
import type { Run } from '@meshbench/schema';
import { ShareButton } from '../../../ui/ShareButton.tsx';
import { RunFacts } from './RunFacts.tsx';
import { RunSummaryLine } from './RunSummaryLine.tsx';

export function RunHeader({ run }: { run: Run }) {
  return (
    <RunFacts run={run} summary={<RunSummaryLine runId={run.id} />}>
      <ShareButton runIds={[run.id]} />
    </RunFacts>
  );
}
