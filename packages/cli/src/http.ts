// The CLI's transport for @meshbench/client: the token, a timeout on every try, and
// retries with backoff where a retry is safe: 429 and 503 (the server refused the request
// and says when to come back: Retry-After is honoured), 502 and 504 (a proxy's), and
// network errors. A 4xx is never retried, nor a 500. A request that may have reached the
// server (a timeout, a reset) is sent again only when it is idempotent: a retried POST of
// events keeps its Idempotency-Key, so it is stored once. The client parses the answers.
import {
  API_BASE,
  ApiRequestError,
  jsonOrUndefined,
  refusal,
  type SendInit,
  type Transport,
} from '@meshbench/client';

/** The client's error, by the name the CLI has always used for it. */
export { ApiRequestError as ApiError };

export type RequestInit = SendInit;
export type Http = Transport;

export interface HttpOptions {
  url: string;
  token?: string | undefined;
  retries: number;
  /** First backoff; doubles each try, with jitter, capped at 15 s. */
  backoffMs: number;
  /** Longest wait for one try's whole response. */
  timeoutMs: number;
  log: (line: string) => void;
  /** How to wait (tests may pass one that records instead). */
  sleep?: (ms: number) => Promise<void>;
}

/** Statuses worth another try: the server, or a proxy before it, could not take it now. */
const RETRIED_STATUS = new Set([429, 502, 503, 504]);
/** Errors that mean the request never reached the server: any request may be sent again. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** The longest Retry-After honoured as it is; longer ones are cut to this. */
const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** Retry-After in ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(MAX_RETRY_AFTER_MS, Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, at - now));
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function http(opts: HttpOptions): Http {
  const base = opts.url.replace(/\/+$/, '');
  const sleep = opts.sleep ?? defaultSleep;
  return {
    async request(method: string, path: string, init: RequestInit = {}) {
      // Unless said otherwise, GET, HEAD, PUT and DELETE are idempotent; a POST is not.
      const idempotent = init.idempotent ?? ['GET', 'HEAD', 'PUT', 'DELETE'].includes(method);
      for (let attempt = 0; ; attempt++) {
        let failure: string;
        let serverWaitMs: number | undefined;
        try {
          const response = await fetch(`${base}${API_BASE}${path}`, {
            method,
            headers: {
              accept: 'application/json',
              ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
              ...init.headers,
            },
            ...(init.body !== undefined ? { body: init.body } : {}),
            signal: AbortSignal.timeout(opts.timeoutMs),
          });
          const text = await response.text();
          if (response.ok) return jsonOrUndefined(text);
          const refused = refusal(response.status, response.statusText, text);
          if (!RETRIED_STATUS.has(response.status)) throw refused;
          failure = `${response.status} ${refused.message}`;
          serverWaitMs = retryAfterMs(response.headers.get('retry-after'));
        } catch (error) {
          if (error instanceof ApiRequestError) throw error;
          const cause = (error as Error).cause as { code?: string } | undefined;
          const timedOut = (error as Error).name === 'TimeoutError';
          failure = timedOut
            ? `no answer within ${opts.timeoutMs / 1000} s (--timeout)`
            : cause
              ? String(cause)
              : String(error);
          if (!idempotent && !NOT_SENT.has(cause?.code ?? '')) {
            throw new ApiRequestError(
              0,
              'unreachable',
              `${method} ${path} failed (${failure}); not sent again, as it may have reached the server`,
            );
          }
        }
        if (attempt >= opts.retries) {
          throw new ApiRequestError(
            0,
            'unreachable',
            `${method} ${path} failed after ${attempt + 1} tries: ${failure}`,
          );
        }
        const backoff =
          Math.min(15_000, opts.backoffMs * 2 ** attempt) * (0.75 + Math.random() * 0.5);
        // The server's Retry-After is the least it asks for; backoff spreads the clients.
        const wait = Math.max(serverWaitMs ?? 0, backoff);
        opts.log(
          `${method} ${path}: ${failure}; retrying in ${(wait / 1000).toFixed(1)} s (${attempt + 1}/${opts.retries})`,
        );
        await sleep(wait);
      }
    },
  };
}
