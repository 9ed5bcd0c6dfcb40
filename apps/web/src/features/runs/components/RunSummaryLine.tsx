// The run page's first line: its summary sentence, from the run's headline (the same read the
// runs list makes, so the two say the same).
import { RunSummary } from '../../../ui/RunSummary.tsx';
import { useRunHeadlines } from '../hooks/use-runs.ts';

export function RunSummaryLine({ runId }: { runId: string }) {
  const headlines = useRunHeadlines([runId]);
  return <RunSummary headline={headlines.data?.get(runId)} />;
}
