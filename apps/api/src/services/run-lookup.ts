// A run named by a request (its id, as the path gives it), or a 404 naming it.
import { notFound } from '../errors.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';

export type RunLookup = Pick<RunsRepository, 'find'>;

export async function runOf(runs: RunLookup, runRef: string): Promise<RunRow> {
  const run = await runs.find(runRef);
  if (!run) throw notFound(`run "${runRef}"`);
  return run;
}
