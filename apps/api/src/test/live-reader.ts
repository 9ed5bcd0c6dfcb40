// A live stream (GET /runs/{id}/live) read raw in a test: every event as it arrives with the
// time it came, and a wait for the next one that matches, or a failure naming what came.
import { EventStreamParser } from '@meshbench/client';
import { type RunLive, runLive } from '@meshbench/schema';

export interface ReadEvent {
  type: string;
  id: string;
  state: RunLive;
  receivedAt: number;
}

export interface LiveReader {
  status: number;
  events: ReadEvent[];
  /** The next event (after those already taken) that matches, within `ms`. */
  next(match?: (e: ReadEvent) => boolean, ms?: number): Promise<ReadEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openLive(
  base: string,
  runId: string,
  opts: { lastEventId?: number; token?: string } = {},
): Promise<LiveReader> {
  const abort = new AbortController();
  const response = await fetch(`${base}/api/v1/runs/${runId}/live`, {
    headers: {
      accept: 'text/event-stream',
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.lastEventId !== undefined ? { 'last-event-id': String(opts.lastEventId) } : {}),
    },
    signal: abort.signal,
  });
  const events: ReadEvent[] = [];
  let taken = 0;
  let wake = () => {};
  const parser = new EventStreamParser();
  const ended = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        for (const e of parser.push(decoder.decode(chunk, { stream: true }))) {
          events.push({
            type: e.type,
            id: e.lastEventId,
            state: runLive.parse(JSON.parse(e.data)),
            receivedAt: Date.now(),
          });
          wake();
        }
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    } finally {
      wake();
    }
  })();
  let done = false;
  ended.finally(() => {
    done = true;
  });
  return {
    status: response.status,
    events,
    ended,
    close: () => abort.abort(),
    async next(match = () => true, ms = 10_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        while (taken < events.length) {
          const e = events[taken++] as ReadEvent;
          if (match(e)) return e;
        }
        if (done || Date.now() > deadline)
          throw new Error(
            `no matching live event (${done ? 'stream ended' : `${ms} ms`}); came: ${events.map((e) => `${e.type}#${e.id}`).join(', ') || 'none'}`,
          );
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, Math.max(1, deadline - Date.now()));
        });
      }
    },
  };
}
