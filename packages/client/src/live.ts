// A run watched as it happens (GET /runs/{id}/live): the event-stream parser and a reader
// that reconnects with Last-Event-ID, for the CLI, the demo and tests (a browser uses
// EventSource). The parser follows the WHATWG HTML standard, 9.2.5-9.2.6 "Parsing / Interpreting
// an event stream" (html.spec.whatwg.org/multipage/server-sent-events.html): lines end in
// CRLF, LF or CR; a blank line dispatches; `:` starts a comment; one space after the colon
// is dropped; data lines join with LF; an id with NUL is ignored; no data, no event.
import { type RunLive, runLive } from '@meshbench/schema';
import { paths } from './client.ts';
import { ApiRequestError, InvalidResponseError, refusal } from './errors.ts';
import { API_BASE } from './transport.ts';

export interface ServerSentEvent {
  type: string;
  data: string;
  /** The last event id at dispatch (it persists across events, as the standard says). */
  lastEventId: string;
}

/** Parses an event stream fed in chunks of text; each push returns the events completed. */
export class EventStreamParser {
  private pending = '';
  private sawCr = false;
  private data: string[] = [];
  private type = '';
  lastEventId = '';
  /** The reconnection time the stream asked for (ms), if any. */
  retryMs: number | undefined;

  push(chunk: string): ServerSentEvent[] {
    const out: ServerSentEvent[] = [];
    let text = chunk;
    // A CR ending the previous chunk and an LF starting this one are one line end.
    if (this.sawCr && text.startsWith('\n')) text = text.slice(1);
    this.sawCr = false;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(this.pending + text.slice(start, i), out);
      this.pending = '';
      if (c === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else this.sawCr = true;
      }
      start = i + 1;
    }
    this.pending += text.slice(start);
    return out;
  }

  private line(line: string, out: ServerSentEvent[]) {
    if (line === '') {
      if (this.data.length > 0)
        out.push({
          type: this.type || 'message',
          data: this.data.join('\n'),
          lastEventId: this.lastEventId,
        });
      this.data = [];
      this.type = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.type = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.lastEventId = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
  }
}

/** One live event: a state while the run is open, then its end (the stored result). */
export interface LiveEvent {
  kind: 'state' | 'end';
  /** The run's data version (the event id). */
  id: number;
  state: RunLive;
}

export interface WatchOptions {
  /** The server's root, e.g. http://localhost:3000. */
  url: string;
  token?: string | undefined;
  /** Resume after this event id (a data version). */
  lastEventId?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Reconnections after a dropped stream, in a row, before giving up (default 10). */
  maxReconnects?: number;
  fetch?: typeof fetch;
}

/**
 * The run's live events until its end event (or the abort). A dropped stream is resumed with
 * Last-Event-ID, after the delay the stream asked for; a 204 (the end already read) ends it.
 */
export async function* watchRun(runId: string, opts: WatchOptions): AsyncGenerator<LiveEvent> {
  const send = opts.fetch ?? ((input, init) => fetch(input, init));
  const url = `${opts.url.replace(/\/+$/, '')}${API_BASE}${paths.live(runId)}`;
  let lastEventId = opts.lastEventId;
  let retryMs = 1000;
  let failures = 0;
  const maxReconnects = opts.maxReconnects ?? 10;
  for (;;) {
    let response: Response;
    try {
      response = await send(url, {
        headers: {
          accept: 'text/event-stream',
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
          ...(lastEventId !== undefined ? { 'last-event-id': String(lastEventId) } : {}),
        },
        signal: opts.signal ?? null,
      });
    } catch (error) {
      if (opts.signal?.aborted) return;
      if (++failures > maxReconnects)
        throw new ApiRequestError(0, 'network_error', `cannot reach the API (${String(error)})`);
      await new Promise((r) => setTimeout(r, retryMs));
      continue;
    }
    if (response.status === 204) return;
    if (!response.ok || !response.body)
      throw refusal(response.status, response.statusText, await response.text());
    const parser = new EventStreamParser();
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        for (const e of parser.push(decoder.decode(chunk, { stream: true }))) {
          if (e.type !== 'state' && e.type !== 'end') continue;
          const parsed = runLive.safeParse(JSON.parse(e.data));
          if (!parsed.success)
            throw new InvalidResponseError('GET /runs/{id}/live', parsed.error.issues);
          failures = 0;
          lastEventId = parsed.data.version;
          yield { kind: e.type, id: parsed.data.version, state: parsed.data };
          if (e.type === 'end') return;
        }
        retryMs = parser.retryMs ?? retryMs;
      }
    } catch (error) {
      if (opts.signal?.aborted) return;
      if (error instanceof InvalidResponseError) throw error;
      if (++failures > maxReconnects) throw error;
    }
    // The stream ended without its end event (a replica closing): resume where it was.
    await new Promise((r) => setTimeout(r, retryMs));
  }
}
