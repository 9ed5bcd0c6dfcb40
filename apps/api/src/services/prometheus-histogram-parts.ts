// Classic histogram points split across remote-write requests, made whole. Prometheus'
// shards send a family's `_bucket`, `_sum` and `_count` series apart (docs/prometheus.md):
// each request's parts of a point are merged into the point's row of
// prometheus_histogram_parts, and the point is assembled and stored as one histogram point
// once the row holds its `+Inf` bucket, sum and count and every `le` the family label set's
// earlier points had (the first point: its `+Inf` bucket equal to its count). Retries merge
// the same values again and store the point once. A part arriving after its point was
// assembled without it, and the parts of a point that never completes (released after
// `waitMs`), are stored as the series they were sent as: nothing accepted is lost.
import type { HistogramPart } from '../domain/histogram-part.ts';
import type { MetricRecord } from '../domain/metric-record.ts';
import {
  type HistogramContext,
  histogramSketch,
} from '../ingest/prometheus/remote-write-families.ts';
import { type LabelSet, leNumber, newMark } from '../ingest/prometheus/remote-write-labels.ts';
import type { Held, RequestHistogramPart } from '../ingest/prometheus/remote-write-outcome.ts';
import type { WireRequest, WireSeries } from '../ingest/prometheus/remote-write-reader.ts';
import type {
  MergedParts,
  PrometheusHistogramPartsRepository,
} from '../repositories/prometheus-histogram-parts.repository.ts';
import {
  type MetricsIngestService,
  NOT_WRITABLE,
  type WriteScope,
} from './metrics-ingest.service.ts';

/** How long a point's parts wait for the rest before they are stored as their series. */
export const HISTOGRAM_PARTS_WAIT_MS = 300_000;
/** How often the stale points are looked for (per process). */
const SWEEP_EVERY_MS = 30_000;
/** How long rows of points assembled or released are kept (but each label set's latest). */
const KEEP_DONE_MS = 3_600_000;
/** Families found (or not) to be histograms, remembered this long when not. */
const NOT_HISTOGRAM_TTL_MS = 30_000;
const CACHE_LIMIT = 100_000;

export interface AssembledWrite {
  records: MetricRecord[];
  held: Held[];
  /** Refused parts, by reason. */
  refused: Map<string, Held>;
  /** Parts that had arrived before (a retried request). */
  duplicates: number;
  /** What to do once the records are stored. */
  stored: () => Promise<void>;
}

const zero = (): Held => ({ samples: 0, histograms: 0, exemplars: 0 });
const keyOf = (scope: string, family: string, labelsKey: string) =>
  `${scope}\u0000${family}\u0000${labelsKey}`;
const pointKey = (p: { family: string; labelsKey: string; tMs: number }) =>
  `${p.family}\u0000${p.labelsKey}\u0000${p.tMs}`;

/** Tags with `le` added, sorted by key as every series' tags are. */
function withLe(tags: Record<string, string>, le: string): Record<string, string> {
  return Object.fromEntries(
    [...Object.entries(tags), ['le', le] as [string, string]].sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    ),
  );
}

type PartsOf = Omit<HistogramPart, 'labelsKey'>;

/** Parts as the cumulative counters they were sent as (`le`s: only those buckets). */
function partSeries(p: PartsOf, only?: { les: Set<string>; rest: boolean }): MetricRecord[] {
  const out: MetricRecord[] = [];
  const one = (name: string, tags: Record<string, string>, value: number) => {
    out.push({
      source: 'prometheus',
      name,
      kind: 'counter',
      unit: p.unit,
      tags,
      runRef: p.runRef,
      env: p.environment,
      tMs: p.tMs,
      intervalMs: 0,
      startAtMs: p.startMs,
      count: 1,
      sum: null,
      min: null,
      max: null,
      last: value,
      lastAtMs: p.tMs,
      sketch: null,
      members: null,
      quantiles: null,
      lastExact: null,
    });
  };
  for (const [le, v] of Object.entries(p.buckets)) {
    if (!only || only.les.has(le)) one(`${p.family}_bucket`, withLe(p.tags, le), v);
  }
  if (!only || only.rest) {
    if (p.inf !== null) one(`${p.family}_bucket`, withLe(p.tags, '+Inf'), p.inf);
    if (p.sum !== null) one(`${p.family}_sum`, p.tags, p.sum);
    if (p.count !== null) one(`${p.family}_count`, p.tags, p.count);
  }
  const first = out[0];
  if (first && p.exemplars && p.exemplars.length > 0) first.exemplars = p.exemplars;
  return out;
}

/** The histogram point of a row whose parts are complete, or why it is refused. */
function assemble(row: MergedParts): MetricRecord | string {
  const count = row.count as number;
  if (count < 0) return `the count of "${row.family}" is negative`;
  const buckets = new Map<number, number>();
  for (const [le, v] of Object.entries(row.buckets)) buckets.set(leNumber(le), v);
  const sketch = histogramSketch(row.family, buckets, count);
  if (typeof sketch === 'string') return sketch;
  return {
    source: 'prometheus',
    name: row.family,
    kind: 'histogram',
    unit: row.unit,
    tags: row.tags,
    runRef: row.runRef,
    env: row.environment,
    tMs: row.tMs,
    intervalMs: 0,
    startAtMs: row.startMs,
    count,
    sum: row.sum,
    min: null,
    max: null,
    last: null,
    lastAtMs: null,
    sketch,
    members: null,
    quantiles: null,
    lastExact: null,
    ...(row.exemplars && row.exemplars.length > 0 ? { exemplars: row.exemplars } : {}),
  };
}

export function histogramPartsAssembler(deps: {
  parts: PrometheusHistogramPartsRepository;
  ingest: Pick<MetricsIngestService, 'store' | 'writableRefs'>;
  /** How long a point's parts wait for the rest before they are stored as their series. */
  waitMs: number;
}) {
  const { parts, ingest, waitMs } = deps;
  const counters = { parts: 0, assembled: 0, late: 0, released: 0, sweepFailures: 0 };
  /** The finite `le`s of each family label set's latest assembled point. */
  const lesCache = new Map<string, number[]>();
  /** Whether a family (by scope) is a classic histogram; `until` for a "no". */
  const families = new Map<string, { histogram: boolean; until: number }>();
  let lastSweep = 0;

  const remember = <K, V>(map: Map<K, V>, key: K, value: V) => {
    if (map.size >= CACHE_LIMIT) map.clear();
    map.set(key, value);
  };

  return {
    counters,

    /**
     * How `request` is read beside earlier ones: the `le`s known of its families, and which
     * families whose `_sum`/`_count` come without a type or buckets are histograms.
     */
    async context(
      request: WireRequest,
      sets: LabelSet[],
      scope: WriteScope,
    ): Promise<HistogramContext> {
      const key = scope.projectId ?? '';
      const now = Date.now();
      const withBuckets = new Set<string>();
      const alone = new Set<string>();
      // Each family added once (a family's dozen bucket series: one add, not twelve).
      const bucketMark = newMark();
      for (let i = 0; i < sets.length; i++) {
        const set = sets[i] as LabelSet;
        const bucketOf = set.bucketOf;
        if (bucketOf !== null) {
          if (bucketOf.mark !== bucketMark) {
            bucketOf.mark = bucketMark;
            withBuckets.add(bucketOf.name);
          }
        } else if (set.sumOf !== null && (request.series[i] as WireSeries).type === 0) {
          alone.add(set.sumOf.name);
        }
      }
      for (const f of withBuckets) {
        const k = `${key}\u0000${f}`;
        if (families.get(k)?.histogram !== true) {
          remember(families, k, { histogram: true, until: Infinity });
        }
      }
      const histogramFamilies = new Set<string>();
      const unknown: string[] = [];
      for (const f of alone) {
        if (withBuckets.has(f) || request.metadata.has(f)) continue;
        const known = families.get(`${key}\u0000${f}`);
        if (known && known.until > now) {
          if (known.histogram) histogramFamilies.add(f);
        } else unknown.push(f);
      }
      if (unknown.length > 0) {
        const found = await parts.knownFamilies(key, unknown);
        for (const f of unknown) {
          const histogram = found.has(f);
          if (histogram) histogramFamilies.add(f);
          remember(families, `${key}\u0000${f}`, {
            histogram,
            until: histogram ? Infinity : now + NOT_HISTOGRAM_TTL_MS,
          });
        }
      }
      return {
        lesOf: (family, labelsKey) => lesCache.get(keyOf(key, family, labelsKey)),
        histogramFamilies,
      };
    },

    /**
     * Merges a request's parts into their points' rows and gives back what to store: the
     * points now complete, and parts that came too late to join theirs.
     */
    async merge(list: RequestHistogramPart[], scope: WriteScope): Promise<AssembledWrite> {
      const key = scope.projectId ?? '';
      const out: AssembledWrite = {
        records: [],
        held: [],
        refused: new Map(),
        duplicates: 0,
        stored: async () => {},
      };
      if (list.length === 0) return out;
      counters.parts += list.length;
      const refs = [...new Set(list.map((p) => p.runRef).filter((r): r is string => !!r))];
      const writable = await ingest.writableRefs(refs, scope);
      const accepted: RequestHistogramPart[] = [];
      for (const p of list) {
        if (p.runRef && !writable.has(p.runRef)) {
          const r = out.refused.get(NOT_WRITABLE) ?? zero();
          r.samples += p.held.samples;
          r.exemplars += p.held.exemplars;
          out.refused.set(NOT_WRITABLE, r);
        } else accepted.push(p);
      }
      const rows = await parts.merge(
        accepted.map(({ held: _held, ...p }) => ({
          ...p,
          scope: key,
          exemplars: p.exemplars.length > 0 ? p.exemplars : null,
        })),
      );
      const unknownLes = new Map<string, { family: string; labelsKey: string }>();
      for (const row of rows) {
        const k = keyOf(key, row.family, row.labelsKey);
        if (row.state === 'pending' && !lesCache.has(k)) {
          unknownLes.set(k, { family: row.family, labelsKey: row.labelsKey });
        }
      }
      if (unknownLes.size > 0) {
        for (const [k, les] of await parts.knownLes(key, [...unknownLes.values()])) {
          remember(lesCache, `${key}\u0000${k}`, les.map(leNumber));
        }
      }
      const byPoint = new Map(accepted.map((p) => [pointKey(p), p]));
      const done: { family: string; labelsKey: string; tMs: number; les: string[] }[] = [];
      const doneLes = new Map<string, number[]>();
      for (const row of rows) {
        const mine = byPoint.get(pointKey(row));
        if (!mine) continue;
        const mineAsRow: PartsOf = {
          ...row,
          buckets: mine.buckets,
          inf: mine.inf,
          sum: mine.sum,
          count: mine.count,
          exemplars: mine.exemplars,
        };
        if (row.state === 'released') {
          // Its parts are series of their own: so are those arriving now.
          for (const r of partSeries(mineAsRow)) {
            out.records.push(r);
            out.held.push({ samples: 1, histograms: 0, exemplars: r.exemplars?.length ?? 0 });
          }
          counters.late++;
          continue;
        }
        if (row.state === 'assembled') {
          // Stored already: a retry, or a bucket the assembled point was made without.
          const les = new Set((row.les ?? []).map(leNumber));
          const lateLes = new Set(Object.keys(mine.buckets).filter((le) => !les.has(leNumber(le))));
          if (lateLes.size > 0) {
            counters.late++;
            for (const r of partSeries(mineAsRow, { les: lateLes, rest: false })) {
              out.records.push(r);
              out.held.push({ samples: 1, histograms: 0, exemplars: 0 });
            }
          }
          out.duplicates += mine.held.samples - lateLes.size;
          continue;
        }
        if (row.inf === null || row.sum === null || row.count === null) continue;
        const k = keyOf(key, row.family, row.labelsKey);
        const known = lesCache.get(k);
        const have = new Set(Object.keys(row.buckets).map(leNumber));
        const complete = known ? known.every((le) => have.has(le)) : row.inf === row.count;
        if (!complete) continue;
        const record = assemble(row);
        const les = Object.keys(row.buckets);
        done.push({ family: row.family, labelsKey: row.labelsKey, tMs: row.tMs, les });
        doneLes.set(k, [...have]);
        if (typeof record === 'string') {
          const r = out.refused.get(record) ?? zero();
          r.samples += mine.held.samples;
          r.exemplars += mine.held.exemplars;
          out.refused.set(record, r);
          continue;
        }
        out.records.push(record);
        out.held.push({ ...mine.held });
      }
      out.stored = async () => {
        await parts.mark(key, done, 'assembled');
        counters.assembled += done.length;
        for (const [k, les] of doneLes) remember(lesCache, k, les);
      };
      return out;
    },

    /**
     * Every SWEEP_EVERY_MS: the parts of points that waited `waitMs` for the rest, stored
     * as the series they were sent as; rows of points done long ago dropped.
     */
    async sweep(force = false): Promise<void> {
      const now = Date.now();
      if (!force && now - lastSweep < SWEEP_EVERY_MS) return;
      lastSweep = now;
      try {
        await sweepOnce();
      } catch {
        // The database away: the rows stay pending, the next sweep takes them.
        counters.sweepFailures++;
      }
    },
  };

  async function sweepOnce(): Promise<void> {
    const stale = await parts.stale(waitMs, 10_000);
    const byScope = new Map<string, MergedParts[]>();
    for (const row of stale) {
      const l = byScope.get(row.scope);
      if (l) l.push(row);
      else byScope.set(row.scope, [row]);
    }
    for (const [scope, rows] of byScope) {
      await ingest.store(
        rows.flatMap((r) => partSeries(r)),
        {
          projectId: scope === '' ? null : scope,
        },
      );
      await parts.mark(
        scope,
        rows.map((r) => ({ ...r, les: null })),
        'released',
      );
      counters.released += rows.length;
    }
    await parts.prune(KEEP_DONE_MS);
  }
}
export type HistogramPartsAssembler = ReturnType<typeof histogramPartsAssembler>;
