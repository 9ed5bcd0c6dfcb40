// The demo dataset that `npm start` shows on first run, posted through the public API.
import type { Run } from '@meshbench/schema';
import { apiClient } from './client.ts';
import { consulScenario, endpointPropagationRun } from './endpoint-propagation.ts';

export { apiClient } from './client.ts';
export { consulScenario, endpointPropagationRun } from './endpoint-propagation.ts';

export async function loadDemo(opts: {
  baseUrl: string;
  token?: string | undefined;
}): Promise<Run[]> {
  const api = apiClient(opts.baseUrl, opts.token);
  const { run, events } = endpointPropagationRun(consulScenario);
  const { finishedAt, ...started } = run;
  const created = await api.createRun(started);
  await api.postEvents(created.id, events, `demo-${consulScenario.seed}`);
  return [await api.finishRun(created.id, finishedAt)];
}
