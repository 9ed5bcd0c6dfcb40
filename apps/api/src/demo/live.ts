// The demo's live run: a Consul scale-up whose lifecycle events are posted as they happen,
// a batch a second through the public events API, for a few minutes after `npm start`, so
// a newcomer opening it sees its page (and `meshbench watch`) move, then finish.
import type { ProbeEvent, Run } from '@meshbench/schema';
import { apiClient } from './client.ts';
import { consulScaleUp, scaleUpRun } from './scale-up.ts';

export interface LiveDemo {
  run: Run;
  /** Resolves with the finished run. */
  done: Promise<Run>;
}

export async function startLiveScaleUp(opts: {
  baseUrl: string;
  token?: string | undefined;
  /** How long the run lasts from now, ms. */
  durationMs: number;
  /** How often a batch is posted, ms. */
  tickMs?: number;
  log?: (message: string) => void;
}): Promise<LiveDemo> {
  const api = apiClient(opts.baseUrl, opts.token);
  const tickMs = opts.tickMs ?? 1000;
  const start = Date.now();
  // Scaled to the time there is: 300 nodes joining over 70 % of it.
  const scale = scaleUpRun({
    ...consulScaleUp,
    seed: 20261127,
    nodes: 300,
    joinSpanMs: Math.round(opts.durationMs * 0.7),
    durationMs: opts.durationMs,
    start: new Date(start).toISOString(),
    branch: 'live-demo',
  });
  const { finishedAt: _planned, ...body } = scale.run;
  const run = await api.createRun({
    ...body,
    scenario: 'scale-up (live)',
    labels: { ...body.labels, live: 'demo' },
  });
  const atMs = (e: ProbeEvent) => Date.parse((e as { at: string }).at);
  const pending = [...scale.events].sort((a, b) => atMs(a) - atMs(b));
  opts.log?.(
    `demo: a live scale-up arriving for ${Math.round(opts.durationMs / 1000)} s: /runs/${run.slug}`,
  );
  const done = (async () => {
    let next = 0;
    let batch = 0;
    const end = start + opts.durationMs;
    for (;;) {
      const now = Date.now();
      const last = now >= end;
      let upTo = next;
      while (upTo < pending.length && (last || atMs(pending[upTo] as ProbeEvent) <= now)) upTo++;
      if (upTo > next) {
        await api.postEvents(run.id, pending.slice(next, upTo), `live-demo-${run.id}-${batch++}`);
        next = upTo;
      }
      if (last) break;
      await new Promise((r) => setTimeout(r, tickMs));
    }
    const lastAt = pending.length > 0 ? atMs(pending[pending.length - 1] as ProbeEvent) : end;
    return api.finishRun(run.id, new Date(Math.max(end, lastAt)).toISOString());
  })();
  return { run, done };
}
