// A run named by a request (its id or slug, as the path gives it), or a 404 naming it; and
// the run a read's access check loaded, handed on to the first lookup of it in the same
// request, so a `/runs/{id}/...` read looks its run up once.
import { AsyncLocalStorage } from 'node:async_hooks';
import { notFound } from '../errors.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';

export type RunLookup = Pick<RunsRepository, 'find'>;

export async function runOf(runs: RunLookup, runRef: string): Promise<RunRow> {
  const run = await runs.find(runRef);
  if (!run) throw notFound(`run "${runRef}"`);
  return run;
}

/** The runs handed on within one request, by the reference they were looked up by. */
const handed = new AsyncLocalStorage<Map<string, RunRow>>();

/**
 * Runs `next` (the rest of a request: its hooks and handler) in a scope runs can be handed
 * on in. Called from a callback-style onRequest hook, so the handler runs inside it.
 */
export const inRunScope = (next: () => void): void => handed.run(new Map(), next);

/**
 * Hands a run just loaded by `ref` to the next lookup of `ref` in this request (once: a
 * later lookup, or work the request started that goes on after it, reads the database).
 * Only a read hands a run on: a write may change it before its handler looks.
 */
export function handOn(ref: string, run: RunRow): void {
  handed.getStore()?.set(ref, run);
}

/** The repository's lookups, taking a run handed on in the request first. */
export function withHandedRuns<R extends RunLookup>(runs: R): R {
  return {
    ...runs,
    async find(ref: string): Promise<RunRow | undefined> {
      const store = handed.getStore();
      const run = store?.get(ref);
      if (run) {
        store?.delete(ref);
        return run;
      }
      return runs.find(ref);
    },
  };
}
