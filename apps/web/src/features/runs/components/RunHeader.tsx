// The top of a run page: the run's facts, with the button that shares it as a report.
import type { Run } from '@meshbench/schema';
import { ShareButton } from '../../../ui/ShareButton.tsx';
import { RunFacts } from './RunFacts.tsx';

export function RunHeader({ run }: { run: Run }) {
  return (
    <RunFacts run={run}>
      <ShareButton runIds={[run.id]} />
    </RunFacts>
  );
}
