// The classic families of one remote-write request: a histogram's `X_bucket{le}`, `X_sum`
// and `X_count` series (or a summary's `X{quantile}`, `X_sum`, `X_count`) of one label set
// and time gathered into one point, then made one record when the request holds all of it,
// or given back as the parts it holds (a histogram; Prometheus' shards split a family
// across requests), or as the series they are (a summary without its count).
import { encodeDistribution } from '../../domain/distribution.ts';
import type { StoredExemplar } from '../../domain/metric-record.ts';
import { type Labelled, labelledOf, labelsKeyOf } from './remote-write-labels.ts';
import { recordOf, timeRefusal, type WriteOutcome } from './remote-write-outcome.ts';
import type { WireRequest } from './remote-write-reader.ts';

/** How a request's classic histograms are read beside what earlier requests brought. */
export interface HistogramContext {
  /** The finite `le`s (as numbers) the family label set's earlier points had, if known. */
  lesOf(family: string, labelsKey: string): number[] | undefined;
  /** Families known to be classic histograms: their `_sum` and `_count` alone are parts. */
  histogramFamilies: ReadonlySet<string>;
}

interface FamilyPoint {
  form: 'histogram' | 'summary';
  name: string;
  labelled: Labelled;
  labelsKey: string;
  unit: string | null;
  tMs: number;
  startMs: number;
  /**
   * The finite buckets as they came, three arrays by bucket (a dozen numbers: cheaper to
   * scan than a Map is to fill): `le`, as sent, and the cumulative count. `+Inf` apart.
   */
  les: number[];
  leTexts: string[];
  bucketCounts: number[];
  infBucket: number | null;
  /** A summary's quantile -> value (null until its first). */
  quantiles: Map<number, number> | null;
  count: number | null;
  sum: number | null;
  samples: number;
  /**
   * Each finite part, for a family left without its count to keep as the series it is: its
   * series' index in the request, its sample's index, and 1 for a gauge (a quantile) or 0
   * (flat, three numbers a part: no object per sample).
   */
  parts: number[];
  /** A part's refusal (a bad `le` or `quantile`), refusing the whole point. */
  invalid: string | null;
  exemplars: StoredExemplar[];
}

const tagsWithout = (tags: Record<string, string>, key: string) => {
  const { [key]: _drop, ...rest } = tags;
  return rest;
};

/** A request's family points, by family label set and time. */
export class FamilyPoints {
  private readonly families = new Map<string, Map<number, FamilyPoint>>();

  /** The point of the family `name` that the series `l` is part of, at `tMs`. */
  point(
    form: 'histogram' | 'summary',
    name: string,
    l: Labelled,
    drop: string | null,
    unit: string | null,
    tMs: number,
  ): FamilyPoint {
    // The family's label set, once per series label set (cached with it).
    let family = l.family;
    if (!family || family.form !== form || family.labelled.name !== name) {
      const tags = drop ? tagsWithout(l.tags, drop) : l.tags;
      family = {
        form,
        labelled: labelledOf(name, tags, l.runRef, l.env),
        key: `${form}\u0000${name}\u0000${l.runRef ?? ''}\u0000${JSON.stringify(tags)}`,
        labelsKey: form === 'histogram' ? labelsKeyOf(l.runRef, tags) : '',
      };
      l.family = family;
    }
    let atTimes = this.families.get(family.key);
    if (!atTimes) {
      atTimes = new Map();
      this.families.set(family.key, atTimes);
    }
    let f = atTimes.get(tMs);
    if (!f) {
      f = {
        form,
        name,
        labelled: family.labelled,
        labelsKey: family.labelsKey,
        unit,
        tMs,
        startMs: 0,
        les: [],
        leTexts: [],
        bucketCounts: [],
        infBucket: null,
        quantiles: null,
        count: null,
        sum: null,
        samples: 0,
        parts: [],
        invalid: null,
        exemplars: [],
      };
      atTimes.set(tMs, f);
    }
    return f;
  }

  /** Each point as a record, parts or series (see the module's head), into `outcome`. */
  records(
    outcome: WriteOutcome,
    context: HistogramContext,
    labels: readonly (Labelled | string)[],
    request: WireRequest,
  ): void {
    for (const atTimes of this.families.values())
      for (const f of atTimes.values()) familyRecord(f, outcome, context, labels, request);
  }
}

function familyRecord(
  f: FamilyPoint,
  outcome: WriteOutcome,
  context: HistogramContext,
  labels: readonly (Labelled | string)[],
  request: WireRequest,
): void {
  const held = { samples: f.samples, histograms: 0, exemplars: f.exemplars.length };
  const late = timeRefusal(f.name, f.tMs, f.startMs);
  if (late) {
    outcome.refuse(late, held);
    return;
  }
  if (f.invalid) {
    outcome.refuse(f.invalid, held);
    return;
  }
  if (f.form === 'histogram' && !whole(f, context)) {
    histogramParts(f, outcome);
    return;
  }
  const count = f.count ?? (f.form === 'histogram' ? f.infBucket : null);
  if (count !== null && count < 0) {
    outcome.refuse(`the count of "${f.name}" is negative`, held);
    return;
  }
  if (count === null) {
    partsAsSeries(f, outcome, labels, request);
    return;
  }
  const r = recordOf(f.labelled, f.unit, f.tMs);
  r.count = count;
  r.sum = f.sum;
  r.startAtMs = f.startMs;
  if (f.exemplars.length > 0) r.exemplars = f.exemplars;
  if (f.form === 'summary') {
    r.kind = 'summary';
    r.quantiles = [...(f.quantiles ?? [])]
      .sort(([a], [b]) => a - b)
      .map(([q, value]) => ({ q, value }));
    outcome.push(r, held);
    return;
  }
  r.kind = 'histogram';
  const sketch = sketchOf(f.name, f.les, f.bucketCounts, count);
  if (typeof sketch === 'string') {
    outcome.refuse(sketch, held);
    return;
  }
  r.sketch = sketch;
  outcome.push(r, held);
}

/** A point whose count is not in the request: each part stays the series it is. */
function partsAsSeries(
  f: FamilyPoint,
  outcome: WriteOutcome,
  labels: readonly (Labelled | string)[],
  request: WireRequest,
): void {
  const nParts = f.parts.length / 3;
  outcome.mapped.notStored += f.samples - nParts;
  if (nParts === 0) outcome.mapped.notStored += f.exemplars.length;
  for (let i = 0; i < nParts; i++) {
    const seriesIndex = f.parts[3 * i] as number;
    const labelled = labels[seriesIndex] as Labelled;
    const kind = f.parts[3 * i + 2] === 1 ? 'gauge' : 'counter';
    const value = request.series[seriesIndex]?.values[f.parts[3 * i + 1] as number] as number;
    const r = recordOf(labelled, f.unit, f.tMs);
    r.kind = kind;
    r.last = value;
    r.lastAtMs = f.tMs;
    if (kind === 'counter') r.startAtMs = f.startMs;
    else {
      r.min = value;
      r.max = value;
    }
    // The exemplars go with the first.
    const ex = i === 0 ? f.exemplars : [];
    if (ex.length > 0) r.exemplars = ex;
    outcome.push(r, { samples: 1, histograms: 0, exemplars: ex.length });
  }
}

/** Whether the request holds the whole histogram point: +Inf, sum, count, every `le`. */
function whole(f: FamilyPoint, context: HistogramContext): boolean {
  if (f.infBucket === null || f.sum === null || f.count === null) return false;
  const les = context.lesOf(f.name, f.labelsKey);
  if (les === undefined) return false;
  for (const le of les) if (!f.les.includes(le)) return false;
  return true;
}

/** A histogram point the request holds part of: its finite parts, for the caller. */
function histogramParts(f: FamilyPoint, outcome: WriteOutcome): void {
  const finiteParts = f.parts.length / 3;
  outcome.mapped.notStored += f.samples - finiteParts;
  if (finiteParts === 0) {
    outcome.mapped.notStored += f.exemplars.length;
    return;
  }
  outcome.mapped.parts.push({
    family: f.name,
    labelsKey: f.labelsKey,
    tMs: f.tMs,
    tags: f.labelled.tags,
    runRef: f.labelled.runRef,
    environment: f.labelled.env,
    unit: f.unit,
    startMs: f.startMs,
    buckets: leRecord(f),
    inf: f.infBucket,
    sum: f.sum,
    count: f.count,
    exemplars: f.exemplars,
    held: { samples: finiteParts, histograms: 0, exemplars: f.exemplars.length },
  });
}

/** A family point's finite buckets as `le` as sent -> cumulative count, in their order. */
function leRecord(f: FamilyPoint): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < f.leTexts.length; i++)
    out[f.leTexts[i] as string] = f.bucketCounts[i] as number;
  return out;
}

/**
 * A classic histogram's explicit buckets from cumulative counts by finite `le` and its
 * count, or why they are refused.
 */
export function histogramSketch(
  name: string,
  buckets: Map<number, number>,
  count: number,
): Uint8Array | string {
  return sketchOf(name, [...buckets.keys()], [...buckets.values()], count);
}

/** histogramSketch of the buckets as two arrays: each finite `le` (no two equal), its count. */
function sketchOf(
  name: string,
  les: number[],
  cumulative: number[],
  count: number,
): Uint8Array | string {
  const order = les.map((_, i) => i);
  // Most senders give them in order already.
  let sorted = true;
  for (let i = 1; i < les.length; i++) {
    if ((les[i] as number) < (les[i - 1] as number)) {
      sorted = false;
      break;
    }
  }
  if (!sorted) order.sort((a, b) => (les[a] as number) - (les[b] as number));
  const bounds: number[] = [];
  const counts: number[] = [];
  let before = 0;
  for (const i of order) {
    const b = les[i] as number;
    bounds.push(b);
    const c = cumulative[i] as number;
    if (c < before || c > count) {
      return `the buckets of "${name}" are not cumulative (le="${b}" holds ${c}, after ${before}, of ${count})`;
    }
    counts.push(c - before);
    before = c;
  }
  counts.push(count - before);
  return encodeDistribution({ form: 'explicit', bounds, counts });
}
