// A run watched as it happens: its live state is built by the same reads as the stored views
// (so the last one equals them), and one watch per run per process polls the run's data
// version and hands each new state to every viewer of that run (docs/live.md).
import {
  type ChangeList,
  LIVE_CHURN_QUERY,
  LIVE_MAX_CHANGES,
  LIVE_MIN_INTERVAL_MS,
  LIVE_STAGE_PERCENTILES,
  type LoadStages,
  type Propagation,
  propagationQuery,
  type Run,
  type RunLive,
  type RunPropagation,
  runPropagationQuery,
  type Series,
  type StoredLoadResult,
  seriesQuery,
  type Timeline,
  timelineQuery,
} from '@meshbench/schema';
import { AppError } from '../errors.ts';

/** A run's data version, status and whether its finish is under way (undefined: no such run). */
export type LiveMark = { version: number; status: string; finishing: boolean } | undefined;

/** The reads a live state is made of: the stored views' own services. */
export interface LiveReads {
  mark(runId: string): Promise<LiveMark>;
  run(runRef: string): Promise<Run>;
  changes(runId: string): Promise<ChangeList>;
  propagation(
    runId: string,
    changeId: string,
    q: ReturnType<typeof propagationQuery.parse>,
  ): Promise<Propagation>;
  /** Every change of a churn run: per-change rows, pooled, per-change P99s, heatmap. */
  churn(runId: string, q: ReturnType<typeof runPropagationQuery.parse>): Promise<RunPropagation>;
  timeline(runId: string, q: ReturnType<typeof timelineQuery.parse>): Promise<Timeline>;
  series(runId: string, q: ReturnType<typeof seriesQuery.parse>): Promise<Series[]>;
  results(runId: string, percentiles: number[]): Promise<StoredLoadResult[]>;
  stages(runId: string, percentiles: number[]): Promise<LoadStages>;
}

/** A missing view (a change without a summary yet, a run without interval data) is null. */
async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof AppError && (error.statusCode === 404 || error.statusCode === 409))
      return null;
    throw error;
  }
}

export function liveService(reads: LiveReads) {
  return {
    mark: (runId: string) => reads.mark(runId),
    /**
     * The run's views now, read with each route's default query (a churn run's propagation
     * over all its changes with the run page's). `version` is the data
     * version read before them, so the state holds every write up to it (maybe some after).
     */
    async state(runId: string, version: number): Promise<RunLive> {
      const run = await reads.run(runId);
      const changes = await reads.changes(run.id);
      const carried = changes.slice(0, LIVE_MAX_CHANGES);
      const propagation = [];
      for (const c of carried)
        propagation.push({
          change: c.id,
          // The run page's summary request: its linear histogram ranged as the page draws it.
          summary: await orNull(
            reads.propagation(run.id, c.id, propagationQuery.parse({ range: 'auto' })),
          ),
        });
      return {
        version,
        open: run.status === 'running',
        run,
        changes,
        propagation,
        changesLeftOut: changes.length - carried.length,
        // The run page's churn section: all changes, read in one go whatever their number.
        churn:
          changes.length >= 2
            ? await reads.churn(run.id, runPropagationQuery.parse(LIVE_CHURN_QUERY))
            : null,
        timeline: await reads.timeline(run.id, timelineQuery.parse({})),
        series: await reads.series(run.id, seriesQuery.parse({})),
        results: await reads.results(run.id, []),
        stages: await orNull(reads.stages(run.id, [...LIVE_STAGE_PERCENTILES])),
      };
    },
  };
}
export type LiveService = ReturnType<typeof liveService>;

/** One Server-Sent Event, framed once and written to every viewer as it is. */
export interface LiveFrame {
  id: number;
  kind: 'state' | 'end';
  text: string;
}

/** A viewer of one run: what it was last sent, and how to send it more. */
export interface LiveViewer {
  lastId: number | undefined;
  send(frame: LiveFrame): void;
  /** A comment line that keeps proxies from closing an idle stream. */
  ping(): void;
  /** The run is gone or the process closes: the stream ends without an end event. */
  close(): void;
}

export interface LiveHubOptions {
  /** How often a watched run's data version is read. */
  pollMs: number;
  /** Least time between two state events of one run. */
  minIntervalMs?: number;
  /** At the finish: the time two equal reads must be apart to call the state final. */
  settleMs?: number;
  /** Reads at the finish before the state counts as final anyway. */
  settleReads?: number;
  pingMs?: number;
  warn(error: unknown, message: string): void;
}

const frame = (kind: LiveFrame['kind'], state: RunLive): LiveFrame => ({
  id: state.version,
  kind,
  text: `id: ${state.version}\nevent: ${kind}\ndata: ${JSON.stringify(state)}\n\n`,
});

/**
 * One watch per run in this process, shared by all its viewers: it polls the run's data
 * version, reads the state when it moved (at most once per minIntervalMs), keeps only the
 * latest frame and hands it to each viewer. Memory per run is one frame whatever the number
 * of viewers; the watch stops with its last viewer or the run's finish.
 */
export function liveHub(live: LiveService, opts: LiveHubOptions) {
  const minIntervalMs = opts.minIntervalMs ?? LIVE_MIN_INTERVAL_MS;
  const settleMs = opts.settleMs ?? 300;
  const settleReads = opts.settleReads ?? 20;
  const pingMs = opts.pingMs ?? 15_000;
  const watches = new Map<string, Watch>();
  const stats = { watches: 0, viewers: 0, reads: 0, polls: 0 };

  class Watch {
    readonly viewers = new Set<LiveViewer>();
    latest: LiveFrame | undefined;
    private timer: NodeJS.Timeout | undefined;
    private readonly pinger: NodeJS.Timeout;
    private lastEmitAt = 0;
    private stopped = false;

    constructor(readonly runId: string) {
      this.pinger = setInterval(() => {
        for (const v of this.viewers) v.ping();
      }, pingMs);
      this.pinger.unref();
      this.schedule(0);
    }

    private schedule(ms: number) {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.tick().then(
          (next) => this.schedule(next),
          (error) => {
            opts.warn(error, `live view of run ${this.runId}: reading failed; trying again`);
            this.schedule(Math.max(opts.pollMs, 1000));
          },
        );
      }, ms);
      this.timer.unref();
    }

    /** One poll; resolves the delay to the next. */
    private async tick(): Promise<number> {
      stats.polls++;
      const mark = await live.mark(this.runId);
      if (this.stopped) return opts.pollMs;
      if (!mark) {
        this.stop();
        for (const v of this.viewers) v.close();
        return opts.pollMs;
      }
      // A finish under way (its gate, kept summaries...) is not the end yet: its steps change
      // what the stored views answer, so states go on until it is complete.
      const open = mark.status === 'running' || mark.finishing;
      if (open && this.latest?.id === mark.version) return opts.pollMs;
      const wait = this.lastEmitAt + minIntervalMs - Date.now();
      if (open && wait > 0) return wait;
      if (open) {
        stats.reads++;
        const state = await live.state(this.runId, mark.version);
        this.emit(frame('state', state));
        return opts.pollMs;
      }
      await this.finish(mark.version);
      return opts.pollMs;
    }

    /**
     * The run finished and its finish is complete: the state is read until two reads
     * settleMs apart agree (a write racing the finish), and that is the end event.
     */
    private async finish(version: number) {
      let state = await live.state(this.runId, version);
      stats.reads++;
      for (let i = 0; i < settleReads && !this.stopped; i++) {
        await new Promise((r) => setTimeout(r, settleMs));
        const mark = await live.mark(this.runId);
        const again = await live.state(this.runId, mark?.version ?? version);
        stats.reads++;
        if (JSON.stringify(again) === JSON.stringify(state)) break;
        state = again;
      }
      if (this.stopped) return;
      this.emit(frame('end', state));
      this.stop();
    }

    private emit(f: LiveFrame) {
      this.latest = f;
      this.lastEmitAt = Date.now();
      for (const v of this.viewers) deliver(v, f);
    }

    stop() {
      if (this.stopped) return;
      this.stopped = true;
      clearTimeout(this.timer);
      clearInterval(this.pinger);
      if (watches.get(this.runId) === this) watches.delete(this.runId);
      stats.watches = watches.size;
    }
  }

  function deliver(v: LiveViewer, f: LiveFrame) {
    // A viewer resuming at this version has it already; the end event goes to everyone.
    if (f.kind === 'state' && v.lastId === f.id) return;
    v.lastId = f.id;
    v.send(f);
  }

  return {
    stats,
    /**
     * Adds a viewer to the run's watch (starting it): the latest state goes to it at once
     * unless it has it (lastId), then every new one; returns how to leave.
     */
    join(runId: string, viewer: LiveViewer): () => void {
      let watch = watches.get(runId);
      if (!watch) {
        watch = new Watch(runId);
        watches.set(runId, watch);
        stats.watches = watches.size;
      }
      watch.viewers.add(viewer);
      stats.viewers++;
      if (watch.latest) deliver(viewer, watch.latest);
      const joined = watch;
      return () => {
        if (!joined.viewers.delete(viewer)) return;
        stats.viewers--;
        if (joined.viewers.size === 0) joined.stop();
      };
    },
    /** Ends every stream (the process closes); their clients reconnect to another replica. */
    closeAll() {
      for (const w of [...watches.values()]) {
        w.stop();
        for (const v of w.viewers) v.close();
      }
    },
  };
}
export type LiveHub = ReturnType<typeof liveHub>;
