// The bytes of request bodies that requests in progress keep in memory (a result file read
// whole, a JSON body, an embedded database's event batch decoded before its transaction),
// counted against one bound for the replica: past it a request is refused with 503 and
// Retry-After at once, rather than the process growing until it is killed. Each request
// gives its bytes back once its reply is done (sent, or the client gone).
import { AppError } from '../errors.ts';

/** Seconds a client is told to wait when the replica holds as many body bytes as it may. */
export const RETRY_AFTER_HELD_S = 1;

export interface HeldBytes {
  readonly limit: number;
  /** Bytes held now by all requests. */
  held(): number;
  /** Requests refused for want of room since the start. */
  refused(): number;
  /** A holder for one request: `hold` counts bytes kept (503 past the bound), `release` gives them all back once. */
  holder(): { hold: (bytes: number) => void; release: () => void };
}

export function heldBytes(limit: number): HeldBytes {
  let held = 0;
  let refused = 0;
  return {
    limit,
    held: () => held,
    refused: () => refused,
    holder() {
      let mine = 0;
      let released = false;
      return {
        hold(bytes: number) {
          if (released) return;
          if (held + bytes > limit) {
            refused++;
            const error = new AppError(
              503,
              'overloaded',
              `the server holds ${Math.round(held / 1048576)} MiB of request bodies in progress already, its limit (MESHBENCH_MAX_HELD_BYTES); send the request again after Retry-After`,
            );
            error.retryAfterS = RETRY_AFTER_HELD_S;
            throw error;
          }
          held += bytes;
          mine += bytes;
        },
        release() {
          if (released) return;
          released = true;
          held -= mine;
          mine = 0;
        },
      };
    },
  };
}
