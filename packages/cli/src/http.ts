// The API client of the CLI: JSON calls with the token, and retries with backoff on
// network errors, 5xx, 429 and 503 (a retried POST of events keeps its Idempotency-Key).
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Http {
  request<T>(
    method: string,
    path: string,
    init?: { body?: Uint8Array | string; headers?: Record<string, string> },
  ): Promise<T>;
}

export interface HttpOptions {
  url: string;
  token?: string | undefined;
  retries: number;
  /** First backoff; doubles each try, with jitter, capped at 15 s. */
  backoffMs: number;
  log: (line: string) => void;
}

const retriable = (status: number) => status >= 500 || status === 429;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function http(opts: HttpOptions): Http {
  const base = opts.url.replace(/\/+$/, '');
  return {
    async request<T>(
      method: string,
      path: string,
      init: { body?: Uint8Array | string; headers?: Record<string, string> } = {},
    ) {
      for (let attempt = 0; ; attempt++) {
        let failure: string;
        let retryAfterMs: number | undefined;
        try {
          const response = await fetch(`${base}/api/v1${path}`, {
            method,
            headers: {
              accept: 'application/json',
              ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
              ...init.headers,
            },
            ...(init.body !== undefined ? { body: init.body } : {}),
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
          if (!retriable(response.status)) throw new ApiError(response.status, code, message);
          failure = `${response.status} ${message}`;
          const after = Number(response.headers.get('retry-after'));
          if (Number.isFinite(after) && after > 0) retryAfterMs = after * 1000;
        } catch (error) {
          if (error instanceof ApiError) throw error;
          failure = (error as Error).cause ? String((error as Error).cause) : String(error);
        }
        if (attempt >= opts.retries) {
          throw new ApiError(
            0,
            'unreachable',
            `${method} ${path} failed after ${attempt + 1} tries: ${failure}`,
          );
        }
        const wait =
          retryAfterMs ??
          Math.min(15_000, opts.backoffMs * 2 ** attempt) * (0.75 + Math.random() * 0.5);
        opts.log(
          `${method} ${path}: ${failure}; retrying in ${(wait / 1000).toFixed(1)} s (${attempt + 1}/${opts.retries})`,
        );
        await sleep(wait);
      }
    },
  };
}
