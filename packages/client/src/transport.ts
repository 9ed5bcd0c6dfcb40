// How a request reaches the API. The client parses; a transport only sends and hands back
// the body's JSON, or throws an ApiRequestError. fetchTransport is the plain one (the web
// app, the demo); the CLI brings its own with retries and timeouts.
import { ApiRequestError, jsonOrUndefined, refusal } from './errors.ts';

/** Where every route lives under the server's root. */
export const API_BASE = '/api/v1';

export interface SendInit {
  body?: string | Uint8Array<ArrayBuffer> | Blob;
  headers?: Record<string, string>;
  /**
   * Whether sending the request twice does what sending it once does (a GET, or a POST of
   * events under an Idempotency-Key): a transport that retries may then send it again.
   */
  idempotent?: boolean;
  signal?: AbortSignal | undefined;
}

export interface Transport {
  /**
   * Sends `method` to `path` (under API_BASE, with its query) and resolves the answer's
   * JSON (null when empty, undefined when not JSON); a non-2xx answer rejects with an
   * ApiRequestError carrying the API's error body.
   */
  request(method: string, path: string, init?: SendInit): Promise<unknown>;
}

export interface FetchTransportOptions {
  /** The server's root, e.g. http://localhost:3000; '' for the page's own origin. */
  url: string;
  /** Sent as a bearer token unless a call brings its own authorization. */
  token?: string | undefined;
  fetch?: typeof fetch;
}

export function fetchTransport(opts: FetchTransportOptions): Transport {
  const base = `${opts.url.replace(/\/+$/, '')}${API_BASE}`;
  const send = opts.fetch ?? ((input, init) => fetch(input, init));
  return {
    async request(method, path, init = {}) {
      let response: Response;
      try {
        response = await send(`${base}${path}`, {
          method,
          headers: {
            accept: 'application/json',
            ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
            ...init.headers,
          },
          ...(init.body !== undefined ? { body: init.body } : {}),
          signal: init.signal ?? null,
        });
      } catch (error) {
        if (init.signal?.aborted) throw error;
        throw new ApiRequestError(0, 'network_error', `cannot reach the API (${String(error)})`);
      }
      const text = await response.text();
      if (!response.ok) throw refusal(response.status, response.statusText, text);
      return jsonOrUndefined(text);
    },
  };
}
