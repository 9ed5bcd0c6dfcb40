// What a run's node clocks say: each node's reports, and the nodes its observations before
// their changes prove behind.
import type { RunClocks } from '@meshbench/schema';
import { formatTimestampUs } from '../domain/timestamp-text.ts';
import type { ClockRepository } from '../repositories/clock.repository.ts';
import { type RunLookup, runOf } from './run-lookup.ts';

export function clocksService(deps: {
  runs: RunLookup;
  clocks: Pick<ClockRepository, 'nodeReports' | 'provablyBehind'>;
}) {
  const { clocks } = deps;
  return {
    /** What the run's clock reports, and its observations before their changes, say. */
    async clocks(runRef: string): Promise<RunClocks> {
      const run = await runOf(deps.runs, runRef);
      const nodes = await clocks.nodeReports(run.id);
      const reported = new Set(nodes.map((n) => n.node));
      const behind = await clocks.provablyBehind(run.id);
      behind.sort((a, b) => b.behindUs - a.behindUs || a.node.localeCompare(b.node));
      return {
        nodes: nodes.map((n) => ({
          node: n.node,
          reports: n.reports,
          minOffsetMs: n.minOffsetUs / 1000,
          maxOffsetMs: n.maxOffsetUs / 1000,
          maxErrorMs: n.maxErrorUs / 1000,
          firstAt: formatTimestampUs(n.firstUs),
          lastAt: formatTimestampUs(n.lastUs),
        })),
        provablyBehind: behind.map((b) => ({
          node: b.node,
          behindByAtLeastMs: b.behindUs / 1000,
          change: b.change,
          proxy: b.proxy,
          hasReports: reported.has(b.node),
        })),
      };
    },
  };
}
export type ClocksService = ReturnType<typeof clocksService>;
