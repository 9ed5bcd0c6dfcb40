// Pool connections held by uploads, capped below the pool's size: code run in an upload's
// scope (AsyncLocalStorage, entered by the API for every request that writes) takes a
// permit before it takes a pool connection, and gives it back with the connection. Beyond
// the cap it waits its turn, up to a bound, then fails with UploadConnectionsBusy (the API
// answers 503 + Retry-After). Reads never wait for a permit, so however many uploads run,
// `poolSize - cap` connections stay for them.
import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';

/** No permit came free within the wait bound: every connection uploads may hold is held. */
export class UploadConnectionsBusy extends Error {
  constructor(
    readonly cap: number,
    readonly waitedMs: number,
  ) {
    super(
      `all ${cap} database connections that uploads may hold are in use and none came free within ${waitedMs} ms (MESHBENCH_UPLOAD_CONNECTIONS)`,
    );
    this.name = 'UploadConnectionsBusy';
  }
}

/** Whether `error`, or a cause of it (drizzle wraps driver errors), is UploadConnectionsBusy. */
export function isUploadConnectionsBusy(error: unknown): error is UploadConnectionsBusy {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if (e instanceof UploadConnectionsBusy) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

export interface UploadConnections {
  /** Connections uploads may hold at once. */
  readonly cap: number;
  /** Runs `fn` as an upload: its queries and transactions take a permit first. */
  run<T>(fn: () => T): T;
  /** Permits held now, uploads waiting for one, and waits that ended in UploadConnectionsBusy. */
  counts(): { held: number; waiting: number; busy: number };
}

const scope = new AsyncLocalStorage<true>();

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

/** The permits: at most `cap` held; a wait longer than `waitMs` fails. */
export function uploadPermits(cap: number, waitMs: number) {
  let held = 0;
  let busy = 0;
  const queue: Waiter[] = [];

  const releaser = () => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = queue.shift();
      if (next) {
        // Handed on as it is: `held` stays, so no newcomer takes it before the one waiting.
        clearTimeout(next.timer);
        next.grant();
      } else held--;
    };
  };

  return {
    cap,
    counts: () => ({ held, waiting: queue.length, busy }),
    /** A permit (its release, which may be called more than once), or UploadConnectionsBusy. */
    acquire(): Promise<() => void> {
      if (held < cap) {
        held++;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          grant: () => resolve(releaser()),
          timer: setTimeout(() => {
            const at = queue.indexOf(waiter);
            if (at >= 0) queue.splice(at, 1);
            busy++;
            reject(new UploadConnectionsBusy(cap, waitMs));
          }, waitMs),
        };
        queue.push(waiter);
      });
    },
  };
}
type Permits = ReturnType<typeof uploadPermits>;

interface PoolLike {
  query(...args: Parameters<pg.Pool['query']>): Promise<pg.QueryResult>;
  connect(): Promise<pg.PoolClient>;
}

/**
 * The pool drizzle and the transactions are given: `query` and `connect` of `pool`, behind a
 * permit when called in an upload's scope. drizzle (0.45 node-postgres/session.js) knows a
 * pool by its constructor's name, hence the name.
 */
export class UploadCappedPool {
  constructor(
    private readonly pool: PoolLike,
    private readonly permits: Permits,
  ) {}

  async query(...args: Parameters<pg.Pool['query']>): Promise<pg.QueryResult> {
    if (!scope.getStore()) return this.pool.query(...args);
    const release = await this.permits.acquire();
    try {
      return await this.pool.query(...args);
    } finally {
      release();
    }
  }

  async connect(): Promise<pg.PoolClient> {
    if (!scope.getStore()) return this.pool.connect();
    const release = await this.permits.acquire();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      release();
      throw error;
    }
    // pg-pool gives a client a fresh release() at each checkout (pg-pool 3 _acquireClient),
    // so this one ends with this checkout.
    const giveBack = client.release.bind(client);
    client.release = (error?: Error | boolean) => {
      release();
      return giveBack(error);
    };
    return client;
  }
}

/** The permits and pool of a Postgres database whose uploads hold at most `cap` connections. */
export function capUploads(
  pool: PoolLike,
  cap: number,
  waitMs: number,
): { pool: UploadCappedPool; uploads: UploadConnections } {
  const permits = uploadPermits(cap, waitMs);
  return {
    pool: new UploadCappedPool(pool, permits),
    uploads: {
      cap,
      run: (fn) => scope.run(true, fn),
      counts: permits.counts,
    },
  };
}
