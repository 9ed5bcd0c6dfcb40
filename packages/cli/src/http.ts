// The API client of the CLI: JSON calls with the token, a timeout on every try, and
// retries with backoff where a retry is safe: 429 and 503 (the server refused the request
// and says when to come back: Retry-After is honoured), 502 and 504 (a proxy's), and
// network errors. A 4xx is never retried, nor a 500. A request that may have reached the
// server (a timeout, a reset) is sent again only when it is idempotent: a retried POST of
// events keeps its Idempotency-Key, so it is stored once.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface RequestInit {
  body?: Uint8Array | string;
  headers?: Record<string, string>;
  /**
   * Whether sending the request twice does what sending it once does (GET, or a POST of
   * events under an Idempotency-Key). Unless so, a request that may have reached the server
   * is not sent again. Default: true for GET, HEAD, PUT, DELETE; false otherwise.
   */
  idempotent?: boolean;
}

export interface Http {
  request<T>(method: string, path: string, init?: RequestInit): Promise<T>;
}

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
    async request<T>(method: string, path: string, init: RequestInit = {}) {
      const idempotent = init.idempotent ?? ['GET', 'HEAD', 'PUT', 'DELETE'].includes(method);
      for (let attempt = 0; ; attempt++) {
        let failure: string;
        let serverWaitMs: number | undefined;
        try {
          const response = await fetch(`${base}/api/v1${path}`, {
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
          if (response.ok) return (text ? JSON.parse(text) : null) as T;
          let code = 'http_error';
          let message = `${response.status} ${response.statusText}`;
          try {
            const body = JSON.parse(text) as { code?: string; message?: string };
            code = body.code ?? code;
            message = body.message ?? message;
          } catch {}
          if (!RETRIED_STATUS.has(response.status))
            throw new ApiError(response.status, code, message);
          failure = `${response.status} ${message}`;
          serverWaitMs = retryAfterMs(response.headers.get('retry-after'));
        } catch (error) {
          if (error instanceof ApiError) throw error;
          const cause = (error as Error).cause as { code?: string } | undefined;
          const timedOut = (error as Error).name === 'TimeoutError';
          failure = timedOut
            ? `no answer within ${opts.timeoutMs / 1000} s (--timeout)`
            : cause
              ? String(cause)
              : String(error);
          if (!idempotent && !NOT_SENT.has(cause?.code ?? '')) {
            throw new ApiError(
              0,
              'unreachable',
              `${method} ${path} failed (${failure}); not sent again, as it may have reached the server`,
            );
          }
        }
        if (attempt >= opts.retries) {
          throw new ApiError(
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
