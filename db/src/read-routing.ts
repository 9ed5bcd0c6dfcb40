// Reads that may lag, sent to a streaming standby (DATABASE_READ_URL) while it keeps up:
// which pool a query takes is decided per request (AsyncLocalStorage), never per connection,
// and a standby that is behind what the caller wrote, lags past a bound, or is away sends the
// read to the primary instead. docs/deploy.md says why the primary, not a wait.
import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';

export type ReadTarget = 'primary' | 'standby';

/**
 * Why a read went where it went: `standby` (it keeps up), `behind` (it has not replayed the
 * caller's write yet), `lagging` (past the lag bound), `down` (away, or not a standby).
 */
export type ReadReason = 'standby' | 'behind' | 'lagging' | 'down';
export const READ_REASONS: readonly ReadReason[] = ['standby', 'behind', 'lagging', 'down'];

export interface StandbyOptions {
  /** A read goes to the primary while the standby has not replayed what the primary had this long ago. */
  maxLagMs: number;
  /** How often both servers' WAL positions are read. */
  probeMs: number;
}

/** A WAL position (`pg_lsn` as text, `X/Y` in hex) as a number of bytes. */
export function parseLsn(text: string): bigint | undefined {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!m) return undefined;
  return (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

interface Scope {
  target: ReadTarget;
}

export interface StandbyState {
  /** The standby answered its last probe as a standby in recovery. */
  up: boolean;
  /** Why it is not used, when it is not. */
  reason: string | undefined;
  /** What it has replayed, at its last probe. */
  replayLsn: bigint | undefined;
  /** The primary's flushed WAL minus the standby's replayed WAL, at the last probe of both. */
  lagBytes: number | undefined;
  lagging: boolean;
}

/** The standby as the rest of the API sees it: routing, the write positions, its state. */
export interface StandbyReads {
  /**
   * Where a read that must see `minLsn` (the caller's last write, if it says) goes now. A
   * standby known to be behind it is asked once more before the answer is the primary.
   */
  choose(minLsn?: bigint): Promise<{ target: ReadTarget; reason: ReadReason }>;
  /** Runs `fn` with its queries and transactions on `target` (the primary outside of it). */
  run<T>(target: ReadTarget, fn: () => T): T;
  /** The primary's WAL insert position now: at or past the end of every commit answered. */
  writeLsn(): Promise<bigint>;
  state(): StandbyState;
  /**
   * Reads routed, by where and why; failovers: reads begun on the standby, ended on the
   * primary; writesOnRead: statements or transactions of a standby read that wrote, refused
   * by the standby and made again on the primary.
   */
  readonly counts: Record<ReadTarget, Record<ReadReason, number>> & {
    failovers: number;
    writesOnRead: number;
  };
  /** Counts a transaction of a standby read that wrote, made again on the primary. */
  wroteOnRead(): void;
  /** Called when the standby goes away or comes back. */
  onChange(listener: (up: boolean, reason: string | undefined) => void): void;
  /** One probe of both servers now (tests; the timer does it otherwise). */
  probe(): Promise<void>;
  close(): void;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Whether this code runs in a read sent to the standby. */
export const onStandby = () => scopes.getStore()?.target === 'standby';

/**
 * Whether `error` (or a cause of it: drizzle wraps driver errors) is a write refused by a
 * standby: SQLSTATE 25006 read_only_sql_transaction (PostgreSQL, Appendix A).
 */
export function isReadOnlyRefusal(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if ((e as { code?: unknown }).code === '25006') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

type QueryArgs = Parameters<pg.Pool['query']>;

/**
 * What drizzle and the transactions are given instead of the primary's pool: `query` and
 * `connect` on the pool of the request's scope. drizzle (0.45 node-postgres/session.js) knows
 * a pool by its constructor's name, hence the name. A standby that fails as unavailable
 * (`isUnavailable`) is marked down and the same query or connect is made on the primary.
 */
export class RoutedPool {
  constructor(
    private readonly primary: pg.Pool,
    readonly standbyPool: pg.Pool,
    private readonly failed: (error: unknown) => boolean,
    private readonly wrote: () => void,
  ) {}

  private pick(): pg.Pool {
    return scopes.getStore()?.target === 'standby' ? this.standbyPool : this.primary;
  }

  private failover(error: unknown): boolean {
    const scope = scopes.getStore();
    if (scope?.target !== 'standby' || !this.failed(error)) return false;
    scope.target = 'primary';
    return true;
  }

  async query(...args: QueryArgs): Promise<pg.QueryResult> {
    const pool = this.pick();
    try {
      return await (pool.query as (...a: QueryArgs) => Promise<pg.QueryResult>)(...args);
    } catch (error) {
      if (pool === this.standbyPool && isReadOnlyRefusal(error)) {
        // A read that still writes: its statement is made on the primary.
        this.wrote();
        return scopes.run({ target: 'primary' }, () =>
          (this.primary.query as (...a: QueryArgs) => Promise<pg.QueryResult>)(...args),
        );
      }
      if (pool === this.standbyPool && this.failover(error))
        return (this.primary.query as (...a: QueryArgs) => Promise<pg.QueryResult>)(...args);
      throw error;
    }
  }

  async connect(): Promise<pg.PoolClient> {
    const pool = this.pick();
    try {
      return await pool.connect();
    } catch (error) {
      if (pool === this.standbyPool && this.failover(error)) return this.primary.connect();
      throw error;
    }
  }
}

/**
 * The routing state of one API process: probes both servers every `probeMs`, keeps the
 * primary's flushed positions of the last `maxLagMs` and more, and answers `choose`.
 */
export function standbyReads(
  primary: pg.Pool,
  standby: pg.Pool,
  options: StandbyOptions,
  unavailableReason: (error: unknown) => string | undefined,
): { reads: StandbyReads; pool: RoutedPool } {
  const counts = {
    primary: { standby: 0, behind: 0, lagging: 0, down: 0 },
    standby: { standby: 0, behind: 0, lagging: 0, down: 0 },
    failovers: 0,
    writesOnRead: 0,
  };
  let up = false;
  let reason: string | undefined = 'not probed yet';
  let replayLsn: bigint | undefined;
  let lagBytes: number | undefined;
  let lagging = false;
  /** The primary's flushed WAL position at each probe, oldest first. */
  const samples: { at: number; lsn: bigint }[] = [];
  const listeners: ((up: boolean, reason: string | undefined) => void)[] = [];

  const setUp = (next: boolean, why: string | undefined) => {
    const changed = next !== up;
    up = next;
    reason = why;
    if (changed) for (const l of listeners) l(up, reason);
  };
  const markDown = (error: unknown) => {
    const why =
      unavailableReason(error) ?? (error instanceof Error ? error.message : String(error));
    setUp(false, why);
  };

  /** Lagging: not yet at the position the primary had flushed `maxLagMs` ago (or, before any sample is that old, at the oldest one). */
  const judgeLag = () => {
    const now = Date.now();
    let guard = samples[0];
    for (const s of samples) if (now - s.at >= options.maxLagMs) guard = s;
    lagging = guard !== undefined && (replayLsn === undefined || replayLsn < guard.lsn);
    const last = samples[samples.length - 1];
    lagBytes =
      last && replayLsn !== undefined ? Math.max(0, Number(last.lsn - replayLsn)) : undefined;
  };

  const probeStandby = async () => {
    try {
      const { rows } = await standby.query<{ lsn: string | null; recovery: boolean }>(
        'select pg_last_wal_replay_lsn()::text as lsn, pg_is_in_recovery() as recovery',
      );
      const row = rows[0];
      if (!row?.recovery) {
        // Promoted, or pointed at a primary by mistake: its answers follow no primary.
        replayLsn = undefined;
        setUp(false, 'DATABASE_READ_URL is not in recovery (not a standby)');
        return;
      }
      replayLsn = row.lsn ? parseLsn(row.lsn) : undefined;
      setUp(true, undefined);
    } catch (error) {
      markDown(error);
    }
  };

  const probe = async () => {
    try {
      const { rows } = await primary.query<{ lsn: string }>(
        'select pg_current_wal_flush_lsn()::text as lsn',
      );
      const lsn = rows[0] ? parseLsn(rows[0].lsn) : undefined;
      if (lsn !== undefined) samples.push({ at: Date.now(), lsn });
    } catch {
      // The primary away: writes say so; the samples kept still bound the lag.
    }
    // Enough samples to judge: the newest at least maxLagMs old, and those after it.
    const now = Date.now();
    while (samples.length > 1 && now - (samples[1] as { at: number }).at >= options.maxLagMs)
      samples.shift();
    await probeStandby();
    judgeLag();
  };

  const timer = setInterval(() => {
    probe().catch(() => {});
  }, options.probeMs);
  timer.unref();

  const routed = new RoutedPool(
    primary,
    standby,
    (error) => {
      if (!unavailableReason(error)) return false;
      counts.failovers++;
      markDown(error);
      return true;
    },
    () => {
      counts.writesOnRead++;
    },
  );

  const reads: StandbyReads = {
    async choose(minLsn) {
      const pick = (target: ReadTarget, why: ReadReason) => {
        counts[target][why]++;
        return { target, reason: why };
      };
      if (!up) return pick('primary', 'down');
      if (lagging) return pick('primary', 'lagging');
      if (minLsn !== undefined && (replayLsn === undefined || replayLsn < minLsn)) {
        await probeStandby();
        judgeLag();
        if (!up) return pick('primary', 'down');
        if (replayLsn === undefined || replayLsn < minLsn) return pick('primary', 'behind');
      }
      return pick('standby', 'standby');
    },
    run: (target, fn) => scopes.run({ target }, fn),
    async writeLsn() {
      const { rows } = await primary.query<{ lsn: string }>(
        'select pg_current_wal_insert_lsn()::text as lsn',
      );
      const lsn = rows[0] ? parseLsn(rows[0].lsn) : undefined;
      if (lsn === undefined) throw new Error('pg_current_wal_insert_lsn() gave no position');
      return lsn;
    },
    state: () => ({ up, reason, replayLsn, lagBytes, lagging }),
    counts,
    wroteOnRead: () => {
      counts.writesOnRead++;
    },
    onChange: (listener) => {
      listeners.push(listener);
    },
    probe,
    close: () => clearInterval(timer),
  };
  return { reads, pool: routed };
}
