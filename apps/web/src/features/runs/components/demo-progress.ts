// What the runs list says while the demo dataset loads on a first start (GET /api/v1/demo),
// so that a person does not take an empty list for the demo: "Loading the demo: 12 of 60 runs".
import type { DemoProgress } from '@meshbench/schema';
import { meshbench } from '../../../api/client.ts';

/** The line, or null when there is nothing to say (no demo, or all of it in place). */
export function demoProgressText(p: DemoProgress | undefined): string | null {
  if (!p) return null;
  // Every run is in place while the live run keeps arriving (a few minutes): the list is whole.
  if (p.state === 'loading' && p.loaded >= p.total) return null;
  if (p.state === 'loading')
    return `Loading the demo: ${p.loaded} of ${p.total} runs (the list fills in as they arrive)`;
  if (p.state === 'failed')
    return `The demo stopped loading after ${p.loaded} of ${p.total} runs (the server's log says why)`;
  return null;
}

export function fetchDemoProgress(signal?: AbortSignal): Promise<DemoProgress> {
  return meshbench.demoProgress({ signal });
}
