// Storing metric records: each is tied to a run of the writer's project (its run tag, else
// its environment and time), its series found or created, and its aggregate appended as one
// point row; a record that matches no run yet is held for a run created later to claim.
// Nothing here is shared between replicas: caches only save look-ups that any replica
// could redo, and the rows written are keyed so that a retry through any replica is one.
import { createHash } from 'node:crypto';
import type { MetricRecord } from '../domain/metric-record.ts';
import { mergeAggregate } from '../domain/series-math.ts';
import type {
  HeldPoint,
  MetricsRepository,
  PointRows,
  SeriesToEnsure,
} from '../repositories/metrics.repository.ts';
import type { RunsRepository, RunWindow } from '../repositories/runs.repository.ts';

export interface StoreResult {
  stored: number;
  /** Points already stored (a retried export): acknowledged, stored once. */
  duplicates: number;
  /** Points that matched no run yet, kept for a run of their environment to claim. */
  held: number;
  /** Points refused, each reason with how many (a run they may not write, outside its window). */
  refused: Map<string, number>;
  /** The records refused, each with its reason (a sender that counts what it sent). */
  refusedRecords: Map<MetricRecord, string>;
}

/** Which runs a write may reach: one project's (a token's, a bound StatsD listener's), or any. */
export interface WriteScope {
  projectId: string | null;
}

/** Refused the same way whether the run is another project's or does not exist at all. */
export const NOT_WRITABLE =
  'named a run (meshbench.run or a run tag) that does not exist or that this token may not write';

interface SeriesIdentity {
  source: string;
  kind: string;
  keyHash: string;
  tags: Record<string, string>;
  /** The series id in the run this identity was last stored for. */
  runId: string | null;
  seriesId: string | null;
}

const REF_TTL_MS = 10_000;

export const MATCHED_NO_RUN =
  "matched no run: set the attribute meshbench.run to a run id or slug, or deployment.environment to a run's environment within its time window";

/** Whether a record's interval overlaps the run's window (a point in time: lies in it). */
export function inWindow(run: RunWindow, r: MetricRecord): boolean {
  const end = r.tMs + r.intervalMs;
  const finished = run.finishedMs ?? Number.POSITIVE_INFINITY;
  return r.intervalMs > 0
    ? run.startedMs < end && r.tMs < finished
    : run.startedMs <= r.tMs && r.tMs <= finished;
}

/**
 * Why a record tagged with its run is refused for lying outside the run's window, or null.
 * A cumulative point before the start is kept: it is what the run's first increase of its
 * stream is counted from.
 */
function outsideWindow(run: RunWindow, r: MetricRecord): string | null {
  if (inWindow(run, r)) return null;
  const cumulative = r.startAtMs !== null && r.kind !== 'gauge';
  if (cumulative && r.tMs < run.startedMs) return null;
  return r.tMs < run.startedMs
    ? "lies before its run's start (runs take points from their start to their finish)"
    : 'lies after its run finished (runs take points from their start to their finish)';
}
const CACHE_LIMIT = 200_000;

export function metricsIngestService(deps: {
  metrics: MetricsRepository;
  /** Where the runs a point may reach are looked up (by id or slug, by window). */
  runs: Pick<RunsRepository, 'windowsByRef' | 'windowsIn'>;
  replica: string;
  /** How long points that matched no run are kept for a run to claim; 0: dropped at once. */
  holdMs: number;
}) {
  const { metrics, runs, replica, holdMs } = deps;
  /**
   * The replica named in a row: a StatsD interval is this replica's share of it (several
   * replicas write one), an OTLP point is the sender's alone, so none is named, and an
   * export retried through another replica is the same row.
   */
  const replicaOf = (r: MetricRecord) => (r.source === 'statsd' ? replica : '');
  const refs = new Map<string, { run: RunWindow | null; expires: number }>();
  const identities = new Map<string, SeriesIdentity>();
  /**
   * Identities by tags object, then name: records that share a tags object (OTLP and remote
   * write keep one per tag set) are found without serialising their tags, which was most of the cost of
   * storing a data point.
   */
  let byTags = new WeakMap<Record<string, string>, Map<string, SeriesIdentity[]>>();
  let byTagsSize = 0;
  const seriesIds = new Map<string, string>();

  /** The series identity: sha256 of source, kind, name and tags sorted by key. */
  function identityOf(r: MetricRecord): SeriesIdentity {
    const raw = `${r.source}\u0000${r.kind}\u0000${r.name}\u0000${JSON.stringify(r.tags)}`;
    let id = identities.get(raw);
    if (!id) {
      const sorted = Object.fromEntries(
        Object.entries(r.tags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
      const keyHash = createHash('sha256')
        .update(JSON.stringify([r.source, r.kind, r.name, sorted]))
        .digest('base64url');
      id = { source: r.source, kind: r.kind, keyHash, tags: sorted, runId: null, seriesId: null };
      if (identities.size >= CACHE_LIMIT) identities.clear();
      identities.set(raw, id);
    }
    return id;
  }

  function identity(r: MetricRecord): SeriesIdentity {
    // StatsD rows come with tags objects of their own (one per row and interval): keeping
    // those by object would only add a miss and an entry per row. OTLP and remote write
    // keep one tags object per tag set.
    if (r.source === 'statsd') return identityOf(r);
    let byName = byTags.get(r.tags);
    const list = byName?.get(r.name);
    if (list) {
      for (const id of list) if (id.source === r.source && id.kind === r.kind) return id;
    }
    const id = identityOf(r);
    if (!byName) {
      if (byTagsSize >= CACHE_LIMIT) {
        byTags = new WeakMap();
        byTagsSize = 0;
      }
      byName = new Map();
      byTags.set(r.tags, byName);
      byTagsSize++;
    }
    if (list) list.push(id);
    else byName.set(r.name, [id]);
    return id;
  }

  async function runsForRefs(list: string[], now: number): Promise<Map<string, RunWindow | null>> {
    const out = new Map<string, RunWindow | null>();
    const missing: string[] = [];
    for (const ref of list) {
      const hit = refs.get(ref);
      if (hit && hit.expires > now) out.set(ref, hit.run);
      else missing.push(ref);
    }
    if (missing.length > 0) {
      const found = await runs.windowsByRef(missing);
      for (const ref of missing) {
        const run = found.find((r) => r.id === ref.toLowerCase() || r.slug === ref) ?? null;
        if (refs.size >= CACHE_LIMIT) refs.clear();
        refs.set(ref, { run, expires: now + REF_TTL_MS });
        out.set(ref, run);
      }
    }
    return out;
  }

  /**
   * The run of a record without a run tag: of its environment (none: runs without one),
   * whose window its interval overlaps; the latest started when several do.
   */
  function runAt(candidates: RunWindow[], r: MetricRecord): RunWindow | null {
    for (const run of candidates) {
      if (run.environment !== r.env) continue;
      if (inWindow(run, r)) return run;
    }
    return null;
  }

  return {
    replica,
    /** Which of `refs` (run ids or slugs) name a run that `scope` may write. */
    async writableRefs(refList: string[], scope: WriteScope): Promise<Set<string>> {
      const out = new Set<string>();
      if (refList.length === 0) return out;
      for (const [ref, run] of await runsForRefs(refList, Date.now())) {
        if (run && (scope.projectId === null || run.projectId === scope.projectId)) out.add(ref);
      }
      return out;
    },
    async store(records: MetricRecord[], scope: WriteScope): Promise<StoreResult> {
      const result: StoreResult = {
        stored: 0,
        duplicates: 0,
        held: 0,
        refused: new Map(),
        refusedRecords: new Map(),
      };
      if (records.length === 0) return result;
      const refuse = (why: string, r: MetricRecord) => {
        result.refused.set(why, (result.refused.get(why) ?? 0) + 1);
        result.refusedRecords.set(r, why);
      };
      const now = Date.now();
      const refList = [...new Set(records.map((r) => r.runRef).filter((r): r is string => !!r))];
      const byRef = await runsForRefs(refList, now);
      const untagged = records.filter((r) => !r.runRef);
      let windows: RunWindow[] = [];
      if (untagged.length > 0) {
        let from = Number.POSITIVE_INFINITY;
        let to = Number.NEGATIVE_INFINITY;
        for (const r of untagged) {
          if (r.tMs < from) from = r.tMs;
          if (r.tMs + r.intervalMs > to) to = r.tMs + r.intervalMs;
        }
        windows = await runs.windowsIn(
          [...new Set(untagged.map((r) => r.env))],
          from,
          to,
          scope.projectId,
        );
      }

      const values: MetricRecord[] = [];
      const runIds: string[] = [];
      const seriesOf: (string | null)[] = [];
      const pending = new Map<string, SeriesToEnsure>();
      /** Per point: its series identity, when its series id is not known yet. */
      const unresolved: (SeriesIdentity | null)[] = [];
      const unmatched: HeldPoint[] = [];
      for (const r of records) {
        let run: RunWindow | null | undefined;
        if (r.runRef) {
          run = byRef.get(r.runRef);
          if (!run || (scope.projectId !== null && run.projectId !== scope.projectId)) {
            refuse(NOT_WRITABLE, r);
            continue;
          }
          const outside = outsideWindow(run, r);
          if (outside) {
            refuse(outside, r);
            continue;
          }
        } else {
          run = runAt(windows, r);
          if (!run) {
            const id = identity(r);
            unmatched.push({ record: r, keyHash: id.keyHash, tags: id.tags });
            continue;
          }
        }
        const id = identity(r);
        let seriesId = id.runId === run.id ? id.seriesId : null;
        if (seriesId === null) {
          const key = `${run.id}|${id.keyHash}`;
          seriesId = seriesIds.get(key) ?? null;
          if (seriesId === null && !pending.has(key)) {
            pending.set(key, {
              runId: run.id,
              source: r.source,
              name: r.name,
              kind: r.kind,
              unit: r.unit,
              tags: id.tags,
              keyHash: id.keyHash,
            });
          }
        }
        if (seriesId !== null) {
          id.runId = run.id;
          id.seriesId = seriesId;
        }
        unresolved.push(seriesId === null ? id : null);
        values.push(r);
        runIds.push(run.id);
        seriesOf.push(seriesId);
      }
      // Held last: rows are keyed (a retry stores them once), held points are not, so a
      // write that fails and is retried must not have held anything yet.
      const hold = async () => {
        if (unmatched.length === 0) return;
        if (holdMs > 0) {
          await metrics.holdPoints(unmatched, scope.projectId, replica);
          result.held = unmatched.length;
        } else {
          for (const u of unmatched) refuse(MATCHED_NO_RUN, u.record);
        }
      };
      if (values.length === 0) {
        await hold();
        return result;
      }
      let created = new Map<string, string>();
      if (pending.size > 0) {
        created = await metrics.ensureSeries([...pending.values()]);
        if (seriesIds.size + created.size > CACHE_LIMIT) seriesIds.clear();
        for (const [k, v] of created) seriesIds.set(k, v);
      }
      // The records are the rows: only run and series are added beside them, by column.
      const rows: PointRows = { values: [], runIds: [], seriesIds: [], replicas: [] };
      // StatsD aggregates of one series and interval (several line shapes) become one row.
      const statsdRow = new Map<string, { at: number; copied: boolean }>();
      for (let i = 0; i < values.length; i++) {
        const runId = runIds[i] as string;
        let seriesId = seriesOf[i] as string | null;
        const id = unresolved[i];
        const r = values[i] as MetricRecord;
        if (id) {
          seriesId = created.get(`${runId}|${id.keyHash}`) ?? null;
          if (!seriesId) {
            refuse('its run was deleted while it was stored', r);
            continue;
          }
          id.runId = runId;
          id.seriesId = seriesId;
        }
        if (r.source === 'statsd') {
          const key = `${runId}|${seriesId}|${r.tMs}|${r.intervalMs}`;
          const first = statsdRow.get(key);
          if (first) {
            // Merged into a copy: the caller's records stay as they were.
            if (!first.copied) {
              rows.values[first.at] = { ...(rows.values[first.at] as MetricRecord) };
              first.copied = true;
            }
            mergeAggregate(r.kind, rows.values[first.at] as MetricRecord, r);
            continue;
          }
          statsdRow.set(key, { at: rows.values.length, copied: false });
        }
        rows.values.push(r);
        rows.runIds.push(runId);
        rows.seriesIds.push(seriesId as string);
        rows.replicas.push(replicaOf(r));
      }
      const appended = await metrics.appendRows(rows);
      result.stored = appended.stored;
      result.duplicates = appended.duplicates;
      await hold();
      return result;
    },
  };
}
export type MetricsIngestService = ReturnType<typeof metricsIngestService>;
