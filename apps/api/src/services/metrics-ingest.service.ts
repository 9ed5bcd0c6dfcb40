// Storing metric records: each is tied to a run (its run tag, else its environment and
// time), its series found or created, and its aggregate appended as one point row.
// Nothing here is shared between replicas: caches only save look-ups that any replica
// could redo, and every row written is this replica's own.
import { createHash } from 'node:crypto';
import type { MetricRecord } from '../ingest/metric-record.ts';
import type {
  MetricsRepository,
  PointRows,
  RunWindow,
  SeriesToEnsure,
} from '../repositories/metrics.repository.ts';

export interface StoreResult {
  stored: number;
  /** Records that matched no run (dropped). */
  unmatched: number;
}

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
const CACHE_LIMIT = 200_000;

export function metricsIngestService(deps: { metrics: MetricsRepository; replica: string }) {
  const { metrics, replica } = deps;
  const refs = new Map<string, { run: RunWindow | null; expires: number }>();
  const identities = new Map<string, SeriesIdentity>();
  /**
   * Identities by tags object, then name: records that share a tags object (OTLP keeps one
   * per tag set) are found without serialising their tags, which was most of the cost of
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
    // those by object would only add a miss and an entry per row.
    if (r.source !== 'otlp') return identityOf(r);
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
      const found = await metrics.runsByRef(missing);
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
   * whose window its interval [tMs, endMs] touches; the latest started when several do.
   */
  function runAt(
    candidates: RunWindow[],
    env: string | null,
    tMs: number,
    endMs: number,
  ): RunWindow | null {
    for (const run of candidates) {
      if (run.environment !== env) continue;
      if (run.startedMs <= endMs && (run.finishedMs === null || tMs <= run.finishedMs)) return run;
    }
    return null;
  }

  return {
    replica,
    async store(records: MetricRecord[]): Promise<StoreResult> {
      if (records.length === 0) return { stored: 0, unmatched: 0 };
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
        windows = await metrics.runsInWindow([...new Set(untagged.map((r) => r.env))], from, to);
      }

      const values: MetricRecord[] = [];
      const runIds: string[] = [];
      const seriesOf: (string | null)[] = [];
      const pending = new Map<string, SeriesToEnsure>();
      /** Per point: its series identity, when its series id is not known yet. */
      const unresolved: (SeriesIdentity | null)[] = [];
      let unmatched = 0;
      for (const r of records) {
        const run = r.runRef
          ? byRef.get(r.runRef)
          : runAt(windows, r.env, r.tMs, r.tMs + r.intervalMs);
        if (!run) {
          unmatched++;
          continue;
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
      let created = new Map<string, string>();
      if (pending.size > 0) {
        created = await metrics.ensureSeries([...pending.values()]);
        if (seriesIds.size + created.size > CACHE_LIMIT) seriesIds.clear();
        for (const [k, v] of created) seriesIds.set(k, v);
      }
      // The records are the rows: only run and series are added beside them, by column.
      const rows: PointRows = { values: [], runIds: [], seriesIds: [], replicas: [] };
      for (let i = 0; i < values.length; i++) {
        const runId = runIds[i] as string;
        let seriesId = seriesOf[i] as string | null;
        const id = unresolved[i];
        if (id) {
          seriesId = created.get(`${runId}|${id.keyHash}`) ?? null;
          if (!seriesId) continue; // its run was deleted meanwhile
          id.runId = runId;
          id.seriesId = seriesId;
        }
        rows.values.push(values[i] as MetricRecord);
        rows.runIds.push(runId);
        rows.seriesIds.push(seriesId as string);
        rows.replicas.push(replica);
      }
      await metrics.appendRows(rows);
      const stored = rows.values.length;
      return { stored, unmatched: unmatched + (values.length - stored) };
    },
  };
}
export type MetricsIngestService = ReturnType<typeof metricsIngestService>;
