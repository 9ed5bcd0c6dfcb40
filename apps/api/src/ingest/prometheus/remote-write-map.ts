// Remote-write series as metric records, with what the receiver must tell the sender: how
// many samples, histogram samples and exemplars each record holds (the Written headers
// count them), and the reasons for those it refuses.
// - Labels become tags; `__name__` is the name; `meshbench_run` names the run (id or
//   slug) and is no tag; `env` is the environment a run is matched by (with the time).
// - The metric type comes from the request's metadata (2.0: each series'; 1.0: by metric
//   family name, when the request carries it), else from the name: a classic histogram's
//   `_bucket` series (with `le`), a summary's `quantile` series, and their `_sum`/`_count`
//   beside them; `_total` is a counter; anything else a gauge.
// - A classic histogram family (`X_bucket{le}`, `X_sum`, `X_count` of one label set and
//   time) is one histogram record (explicit bounds from `le`, counts de-cumulated) when the
//   request holds all of it: its `+Inf` bucket, sum and count, and every `le` its earlier
//   points had (`lesOf`). A point missing any (Prometheus' shards split a family across
//   requests) is given back as its parts (`parts`), for the caller to merge with the parts
//   other requests bring (services/prometheus-write.service.ts). A family's `_sum` and
//   `_count` alone are parts when its type (metadata, or `histogramFamilies`) says so.
// - A summary family (`X{quantile}`, `X_sum`, `X_count`) is one summary record. Parts of a
//   summary whose count is not in the request are kept as the series they are (a
//   cumulative counter or a gauge): nothing sent is dropped.
// - Counters and histograms are cumulative: kept as sent with their start (2.0's
//   start_timestamp, or the deprecated created_timestamp; unknown: 0), and turned into the
//   run's increases on read, across resets (domain/series-math.ts).
// - A gauge histogram (type GAUGEHISTOGRAM, or a native histogram with ResetHint GAUGE) is a
//   distribution at its time, stored as kind gauge_histogram: never an increase.
// - Stale markers (the NaN 0x7ff0000000000002) end a series and carry no value, and other
//   NaN or infinite samples have no place in a series' numbers: they are acknowledged as
//   written and not stored (counted apart, `notStored`).
// - A unit from the metadata is kept in UCUM, as OTLP sends it (`seconds` is `s`).
// - Exemplars go with the point their series' last sample (or histogram) made in the
//   request: stored, held or refused with it.
import { createHash } from 'node:crypto';
import { encodeDistribution } from '../../domain/distribution.ts';
import type { HistogramPart } from '../../domain/histogram-part.ts';
import type { MetricRecord, StoredExemplar } from '../../domain/metric-record.ts';
import { inRange, OTLP_LIMITS } from '../otlp/otlp-values.ts';
import { nativeDistribution } from './native-histogram.ts';
import {
  METRIC_TYPE,
  RESET_HINT_GAUGE,
  type WireExemplar,
  type WireHistogram,
  type WireRequest,
  type WireSeries,
} from './remote-write-reader.ts';

export const RUN_LABEL = 'meshbench_run';
export const ENV_LABEL = 'env';

/**
 * Prometheus' unit words as the UCUM units OTLP sends (and the web app formats), as
 * OpenTelemetry's Prometheus translation maps them; other units are kept as sent.
 */
const UCUM: Record<string, string> = {
  seconds: 's',
  milliseconds: 'ms',
  bytes: 'By',
  ratio: '1',
  percent: '%',
};

/** What a record (or a refusal) holds of the request: the three things the sender counts. */
export interface Held {
  samples: number;
  histograms: number;
  exemplars: number;
}

/** A classic histogram point's parts that one request holds (not all of them). */
export interface RequestHistogramPart extends HistogramPart {
  exemplars: StoredExemplar[];
  /** What the parts hold of the request. */
  held: Held;
}

/** How a request's classic histograms are read beside what earlier requests brought. */
export interface HistogramContext {
  /** The finite `le`s (as numbers) the family label set's earlier points had, if known. */
  lesOf(family: string, labelsKey: string): number[] | undefined;
  /** Families known to be classic histograms: their `_sum` and `_count` alone are parts. */
  histogramFamilies: ReadonlySet<string>;
}

/** One request read alone: a point is whole when its `+Inf` bucket, sum and count are in it. */
const ALONE: HistogramContext = { lesOf: () => [], histogramFamilies: new Set() };

export interface MappedWrite {
  records: MetricRecord[];
  /** Classic histogram points the request holds part of. */
  parts: RequestHistogramPart[];
  /** Per record, what it holds of the request. */
  held: Held[];
  /** Everything the request carries. */
  total: Held;
  /** Samples acknowledged and not stored: stale markers, NaN, infinities. */
  notStored: number;
  /** Refused, by reason: what each refused. */
  refused: Map<string, Held>;
}

/** The exemplars of a series that sent none (most): read-only. */
const NO_EXEMPLARS: StoredExemplar[] = Object.freeze([]) as unknown as StoredExemplar[];

const none = (): Held => ({ samples: 0, histograms: 0, exemplars: 0 });

export function addHeld(into: Held, from: Held): void {
  into.samples += from.samples;
  into.histograms += from.histograms;
  into.exemplars += from.exemplars;
}

/** The reasons as one message: "3 sample(s): reason; 1 histogram sample(s): other". */
export function refusalText(refused: Map<string, Held>): string {
  const parts: string[] = [];
  for (const [why, h] of refused) {
    const what = [
      h.samples > 0 ? `${h.samples} sample(s)` : '',
      h.histograms > 0 ? `${h.histograms} histogram sample(s)` : '',
      h.exemplars > 0 ? `${h.exemplars} exemplar(s)` : '',
    ]
      .filter(Boolean)
      .join(', ');
    parts.push(`${what || 'nothing'}: ${why}`);
  }
  return parts.join('; ');
}

interface Labelled {
  name: string;
  tags: Record<string, string>;
  runRef: string | null;
  env: string | null;
  /** As a part of a classic family: its tags without `le` or `quantile`, and their key. */
  family: {
    form: 'histogram' | 'summary';
    labelled: Labelled;
    key: string;
    labelsKey: string;
  } | null;
  /** The name less `_bucket`, for a series with `le` (null for others): its family. */
  bucketOf: string | null;
  /** The name less `_sum` or `_count` (null for others): the family it may be part of. */
  sumOf: string | null;
  /** `le` and `quantile` as numbers (NaN: absent or no number). */
  le: number;
  quantile: number;
}

/**
 * One string object per family name: the names derived from label sets (a family's 12
 * `_bucket` series give 12 equal slices) are one object each, so a set of them compares
 * pointers, not characters.
 */
let familyNames = new Map<string, string>();
function familyName(name: string): string {
  const known = familyNames.get(name);
  if (known !== undefined) return known;
  if (familyNames.size >= 100_000) familyNames = new Map();
  familyNames.set(name, name);
  return name;
}

/** A Labelled of a name and tags (the derived fields worked out). */
function labelledOf(
  name: string,
  tags: Record<string, string>,
  runRef: string | null,
  env: string | null,
): Labelled {
  // Worked out once per label set: the slices are new strings, hashed again at each look-up.
  const bucketOf =
    name.endsWith('_bucket') && tags.le !== undefined ? familyName(name.slice(0, -7)) : null;
  const sumOf =
    name.endsWith('_sum') || name.endsWith('_count')
      ? familyName(name.slice(0, name.lastIndexOf('_')))
      : null;
  return {
    name,
    tags,
    runRef,
    env,
    family: null,
    bucketOf,
    sumOf,
    le: tags.le === undefined ? Number.NaN : labelNumber(tags.le),
    quantile: tags.quantile === undefined ? Number.NaN : labelNumber(tags.quantile),
  };
}

/**
 * A metric family a series may belong to (by its name), one object per name: a request's
 * families are told apart by marking them (`mark`, see newMark), not by a Set of names.
 */
export interface Family {
  name: string;
  mark: number;
}
let familyObjects = new Map<string, Family>();
function familyOf(name: string): Family {
  let f = familyObjects.get(name);
  if (f === undefined) {
    if (familyObjects.size >= 100_000) familyObjects = new Map();
    f = { name: familyName(name), mark: 0 };
    familyObjects.set(name, f);
  }
  return f;
}
let lastMark = 0;
/** A mark no pass over families has used: a family marked with it was seen in this pass. */
export const newMark = (): number => ++lastMark;

/** Name endings of a family's series (OpenMetrics: counters, histograms, summaries). */
const SUFFIXES = ['_total', '_bucket', '_sum', '_count', '_created', '_gcount', '_gsum'];

/**
 * What a label set says, worked out once for all who read it (metadata, histogram parts,
 * the mapping): one look-up per series.
 */
export interface LabelSet {
  /** Its name, tags, run and environment, or why its labels are refused. */
  meaning: Labelled | string;
  /** The families its series may belong to: its name, and its name less each suffix. */
  families: Family[];
  /** A bucket's family (a `_bucket` name and an `le` label, whatever its value), or null. */
  bucketOf: Family | null;
  /** The family of a `_sum`/`_count` series that is no bucket, or null. */
  sumOf: Family | null;
}

function labelSetOf(labels: string[]): LabelSet {
  let name = '';
  let le = false;
  for (let i = 0; i + 1 < labels.length; i += 2) {
    if (labels[i] === '__name__') name = labels[i + 1] as string;
    else if (labels[i] === 'le') le = true;
  }
  const families: Family[] = [];
  if (name) {
    families.push(familyOf(name));
    for (const x of SUFFIXES)
      if (name.endsWith(x)) families.push(familyOf(name.slice(0, -x.length)));
  }
  let bucketOf: Family | null = null;
  let sumOf: Family | null = null;
  if (le && name.endsWith('_bucket')) bucketOf = familyOf(name.slice(0, -7));
  else if (name.endsWith('_sum') || name.endsWith('_count')) {
    sumOf = familyOf(name.slice(0, name.lastIndexOf('_')));
  }
  return { meaning: labelsOf(labels), families, bucketOf, sumOf };
}

/**
 * Label sets by their array (the 1.0 reader gives a label set it has seen before as the
 * same array): one LabelSet per label set, so its tags are one object too (the ingest
 * service finds a series' identity by the object).
 */
const labelSetCache = new WeakMap<string[], LabelSet>();

/** What each series' label set says, in the request's order. */
export function labelSetsOf(request: WireRequest): LabelSet[] {
  const out: LabelSet[] = new Array(request.series.length);
  for (let i = 0; i < out.length; i++) {
    const labels = (request.series[i] as WireSeries).labels;
    let set = labelSetCache.get(labels);
    if (set === undefined) {
      set = labelSetOf(labels);
      labelSetCache.set(labels, set);
    }
    out[i] = set;
  }
  return out;
}

/** The series' name, tags, run and environment, or why its labels are refused. */
function labelsOf(labels: string[]): Labelled | string {
  let name = '';
  let runRef: string | null = null;
  const pairs: [string, string][] = [];
  const seen = new Set<string>();
  for (let i = 0; i < labels.length; i += 2) {
    const key = labels[i] as string;
    const value = labels[i + 1] as string;
    if (key === '') return 'a label with an empty name';
    if (seen.has(key)) return `label "${key.slice(0, 100)}" appears twice`;
    seen.add(key);
    if (Buffer.byteLength(key) > OTLP_LIMITS.attributeKeyBytes) {
      return `a label name longer than ${OTLP_LIMITS.attributeKeyBytes} bytes`;
    }
    if (Buffer.byteLength(value) > OTLP_LIMITS.attributeValueBytes) {
      return `label "${key.slice(0, 100)}" has a value longer than ${OTLP_LIMITS.attributeValueBytes} bytes`;
    }
    // An empty value is no label, as in Prometheus.
    if (value === '') continue;
    if (key === '__name__') name = value;
    else if (key === RUN_LABEL) runRef = value;
    else pairs.push([key, value]);
  }
  if (!name) return 'a series without a __name__ label';
  if (Buffer.byteLength(name) > OTLP_LIMITS.nameBytes) {
    return `a metric name longer than ${OTLP_LIMITS.nameBytes} bytes`;
  }
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const tags = Object.fromEntries(pairs);
  return labelledOf(name, tags, runRef, tags[ENV_LABEL] ?? null);
}

const base = (): MetricRecord => ({
  source: 'prometheus',
  name: '',
  kind: 'gauge',
  unit: null,
  tags: {},
  runRef: null,
  env: null,
  tMs: 0,
  intervalMs: 0,
  startAtMs: null,
  count: 1,
  sum: null,
  min: null,
  max: null,
  last: null,
  lastAtMs: null,
  sketch: null,
  members: null,
  quantiles: null,
  lastExact: null,
});

/** A classic family at one time: its parts as they arrive. */
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

const finite = (v: number) => Number.isFinite(v);

/** A label value as a number ("+Inf" included), as Prometheus parses `le` and `quantile`. */
function labelNumber(text: string): number {
  const t = text.trim();
  if (t === '+Inf' || t === 'Inf' || t === '+inf' || t === 'inf') return Number.POSITIVE_INFINITY;
  if (t === '-Inf' || t === '-inf') return Number.NEGATIVE_INFINITY;
  return t === '' ? Number.NaN : Number(t);
}

const exemplarValue = (v: number): StoredExemplar['value'] =>
  finite(v) ? v : Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf';

function storedExemplar(e: WireExemplar): StoredExemplar {
  const labels: Record<string, string> = {};
  for (let i = 0; i < e.labels.length; i += 2) {
    labels[e.labels[i] as string] = e.labels[i + 1] as string;
  }
  return { tMs: e.timestamp, value: exemplarValue(e.value), labels };
}

/** The key of a family's label set: its run label and tags (sorted, without `le`). */
export function labelsKeyOf(runRef: string | null, tags: Record<string, string>): string {
  return createHash('sha256')
    .update(`${runRef ?? ''}\u0000${JSON.stringify(tags)}`)
    .digest('base64url');
}

export function mapRemoteWrite(
  request: WireRequest,
  context: HistogramContext = ALONE,
  sets: LabelSet[] = labelSetsOf(request),
): MappedWrite {
  const out: MappedWrite = {
    records: [],
    parts: [],
    held: [],
    total: none(),
    notStored: 0,
    refused: new Map(),
  };
  const refuse = (why: string, h: Held) => {
    const r = out.refused.get(why);
    if (r) addHeld(r, h);
    else out.refused.set(why, { ...h });
  };
  const push = (r: MetricRecord, h: Held) => {
    out.records.push(r);
    out.held.push(h);
  };
  const meta = request.metadata;
  /** The type the request gives a family (1.0: metadata by family name). */
  // Most requests carry no metadata: no look-up per sample then.
  const typeOf = (s: WireSeries, family: string): number =>
    s.type || (meta.size === 0 ? 0 : meta.get(family)?.type || 0);
  const unitOf = (s: WireSeries, family: string): string | null => {
    const unit = s.unit || (meta.size === 0 ? null : meta.get(family)?.unit || null);
    return unit === null ? null : (UCUM[unit] ?? unit);
  };

  // First pass: labels, and which families the request shows to be histograms or summaries.
  const labels: (Labelled | string)[] = sets.map((set) => set.meaning);
  const bucketFamilies = new Set<string>();
  const quantileFamilies = new Set<string>();
  let lastBucketOf: string | null = null;
  for (const l of labels) {
    if (typeof l === 'string') continue;
    if (l.bucketOf !== null) {
      // A family's buckets come one after another: added once.
      if (l.bucketOf !== lastBucketOf) bucketFamilies.add(l.bucketOf);
      lastBucketOf = l.bucketOf;
    } else if (l.tags.quantile !== undefined) quantileFamilies.add(l.name);
  }

  const families = new Map<string, Map<number, FamilyPoint>>();
  const familyPoint = (
    form: 'histogram' | 'summary',
    name: string,
    l: Labelled,
    drop: string | null,
    unit: string | null,
    tMs: number,
  ): FamilyPoint => {
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
    let atTimes = families.get(family.key);
    if (!atTimes) {
      atTimes = new Map();
      families.set(family.key, atTimes);
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
  };

  for (let index = 0; index < request.series.length; index++) {
    mapSeries(request.series[index] as WireSeries, index);
  }

  for (const atTimes of families.values()) for (const f of atTimes.values()) familyRecord(f);
  return out;

  /** The series' exemplars with the last point it made since `before`, or as its samples went. */
  function attach(exemplars: StoredExemplar[], before: number, notStoredBefore: number): void {
    if (exemplars.length === 0) return;
    const last = out.records.length > before ? out.records.length - 1 : -1;
    const held = out.held[last];
    if (last >= 0 && held) {
      const r = out.records[last] as MetricRecord;
      r.exemplars = [...(r.exemplars ?? []), ...exemplars];
      held.exemplars += exemplars.length;
    } else if (out.notStored > notStoredBefore) out.notStored += exemplars.length;
  }

  function mapSeries(s: WireSeries, index: number): void {
    const nSamples = s.values.length;
    const nHistograms = s.histograms.length;
    const nExemplars = s.exemplars.length;
    out.total.samples += nSamples;
    out.total.histograms += nHistograms;
    out.total.exemplars += nExemplars;
    const l = labels[index] as Labelled | string;
    if (typeof l === 'string') {
      refuse(l, { samples: nSamples, histograms: nHistograms, exemplars: nExemplars });
      return;
    }
    // Exemplars must have a time (the 2.0 specification), and a sample to go with.
    const exemplars: StoredExemplar[] = nExemplars === 0 ? NO_EXEMPLARS : [];
    for (const e of s.exemplars) {
      if (e.timestamp === 0 || !inRange(e.timestamp)) {
        refuse(`an exemplar of "${l.name}" has no time in 1970-9999`, {
          samples: 0,
          histograms: 0,
          exemplars: 1,
        });
      } else exemplars.push(storedExemplar(e));
    }
    if (exemplars.length > 0 && nSamples === 0 && nHistograms === 0) {
      refuse(`exemplars of "${l.name}" came without a sample of their series`, {
        samples: 0,
        histograms: 0,
        exemplars: exemplars.length,
      });
      exemplars.length = 0;
    }
    if (nSamples > 0 && nHistograms > 0) {
      refuse(`series "${l.name}" carries both samples and histograms`, {
        samples: nSamples,
        histograms: nHistograms,
        exemplars: exemplars.length,
      });
      return;
    }
    const name = l.name;
    const before = out.records.length;
    const notStoredBefore = out.notStored;
    if (nHistograms > 0) {
      for (const h of s.histograms) nativeRecord(s, h, l, typeOf(s, name), unitOf(s, name));
      attach(exemplars, before, notStoredBefore);
      return;
    }
    if (nSamples === 0) return; // metadata (or exemplars) alone
    // Which family the series belongs to.
    let form: 'histogram' | 'summary' | null = null;
    let family = name;
    let part: 'bucket' | 'sum' | 'count' | 'quantile' | null = null;
    let cumulativePart = false;
    if (l.bucketOf !== null) {
      const b = l.bucketOf;
      const t = typeOf(s, b);
      if (t === METRIC_TYPE.unknown || t === METRIC_TYPE.histogram) {
        form = 'histogram';
        family = b;
        part = 'bucket';
      }
    } else if (l.sumOf !== null) {
      const b = l.sumOf;
      const t = typeOf(s, b);
      const which = name.endsWith('_sum') ? 'sum' : 'count';
      // A family's _sum and _count join it only beside its buckets (or quantiles) in this
      // request: alone (a family split across requests by Prometheus' shards) they stay the
      // series they are, cumulative counters when the family is typed so, as a point of them
      // would take the time of the family's point sent in another request, and one of the
      // two would be dropped as a retry.
      if ((t === METRIC_TYPE.histogram || t === 0) && bucketFamilies.has(b)) {
        form = 'histogram';
        family = b;
        part = which;
      } else if ((t === METRIC_TYPE.summary || t === 0) && quantileFamilies.has(b)) {
        form = 'summary';
        family = b;
        part = which;
      } else if (
        t === METRIC_TYPE.histogram ||
        (t === 0 && context.histogramFamilies.has(b) && !quantileFamilies.has(b))
      ) {
        // A part of a histogram point whose other parts come in other requests.
        form = 'histogram';
        family = b;
        part = which;
      } else if (t === METRIC_TYPE.summary) {
        cumulativePart = true;
      }
    } else if (l.tags.quantile !== undefined) {
      const t = typeOf(s, name);
      if (t === METRIC_TYPE.unknown || t === METRIC_TYPE.summary) {
        form = 'summary';
        part = 'quantile';
      }
    }
    if (form === null || part === null) {
      const t =
        typeOf(s, name) ||
        (name.endsWith('_total') ? typeOf(s, name.slice(0, -6)) : 0) ||
        (name.endsWith('_total') ? METRIC_TYPE.counter : METRIC_TYPE.gauge);
      const kind = t === METRIC_TYPE.counter || cumulativePart ? 'counter' : 'gauge';
      for (let i = 0; i < nSamples; i++) {
        plainRecord(s, i, l, kind, unitOf(s, name));
      }
      attach(exemplars, before, notStoredBefore);
      return;
    }
    const drop = part === 'bucket' ? 'le' : part === 'quantile' ? 'quantile' : null;
    for (let i = 0; i < nSamples; i++) {
      const v = s.values[i] as number;
      const f = familyPoint(form, family, l, drop, unitOf(s, family), s.times[i] as number);
      if (i === nSamples - 1 && exemplars.length > 0) f.exemplars.push(...exemplars);
      f.samples++;
      const start = (s.starts[i] as number) || s.createdMs;
      if (start) f.startMs = Math.max(f.startMs, start);
      if (!finite(v)) continue; // a stale marker (the family ends), or no number
      const partKind = part === 'quantile' ? 'gauge' : 'counter';
      f.parts.push(index, i, partKind === 'gauge' ? 1 : 0);
      if (part === 'bucket') {
        const le = l.le;
        if (Number.isNaN(le)) f.invalid = `series "${name}" has le="${l.tags.le}", not a number`;
        else if (le === Number.POSITIVE_INFINITY) f.infBucket = v;
        else if (f.les.includes(le)) f.invalid = `series "${name}" has le="${l.tags.le}" twice`;
        else {
          f.les.push(le);
          f.leTexts.push(l.tags.le as string);
          f.bucketCounts.push(v);
        }
      } else if (part === 'quantile') {
        const q = l.quantile;
        if (!(q >= 0 && q <= 1)) {
          f.invalid = `series "${name}" has quantile="${l.tags.quantile}", not in [0, 1]`;
        } else {
          f.quantiles ??= new Map();
          f.quantiles.set(q, v);
        }
      } else if (part === 'sum') f.sum = v;
      else f.count = v;
    }
  }

  function timeRefusal(name: string, tMs: number, startMs: number): string | null {
    if (!inRange(tMs) || (startMs !== 0 && !inRange(startMs))) {
      return `a sample of "${name}" has a time outside 1970-9999`;
    }
    if (startMs > tMs) return `a sample of "${name}" starts after its time`;
    return null;
  }

  function plainRecord(
    s: WireSeries,
    i: number,
    l: Labelled,
    kind: 'counter' | 'gauge',
    unit: string | null,
  ): void {
    const v = s.values[i] as number;
    const tMs = s.times[i] as number;
    const start = (s.starts[i] as number) || s.createdMs;
    const one = { samples: 1, histograms: 0, exemplars: 0 };
    const late = timeRefusal(l.name, tMs, start);
    if (late) {
      refuse(late, one);
      return;
    }
    if (!finite(v)) {
      out.notStored++;
      return;
    }
    const r = base();
    r.name = l.name;
    r.kind = kind;
    r.unit = unit;
    r.tags = l.tags;
    r.runRef = l.runRef;
    r.env = l.env;
    r.tMs = tMs;
    r.last = v;
    r.lastAtMs = tMs;
    if (kind === 'counter') r.startAtMs = start;
    else {
      r.min = v;
      r.max = v;
    }
    push(r, one);
  }

  function nativeRecord(
    s: WireSeries,
    h: WireHistogram,
    l: Labelled,
    type: number,
    unit: string | null,
  ): void {
    const one = { samples: 0, histograms: 1, exemplars: 0 };
    // A gauge histogram (the series' type, or the sample's reset hint GAUGE: prompb
    // types.proto / io/prometheus/write/v2 types.proto Histogram.ResetHint, and
    // model/histogram CounterResetHint GaugeType, at d15adb9ad7e5d9fbde3a9a8f30200593a5a14d86)
    // is a distribution at its time: no start, no increase (series-math.ts lastSnapshot).
    const gauge = type === METRIC_TYPE.gaugeHistogram || h.resetHint === RESET_HINT_GAUGE;
    const start = gauge ? 0 : h.startTimestamp || s.createdMs;
    const late = timeRefusal(l.name, h.timestamp, start);
    if (late) {
      refuse(late, one);
      return;
    }
    if (h.inexact) {
      refuse(`a histogram of "${l.name}" has a count beyond 2^53`, one);
      return;
    }
    // A stale marker: the histogram's sum is the stale NaN and it has nothing to store.
    if (Number.isNaN(h.sum) && h.count === 0) {
      out.notStored++;
      return;
    }
    let layout: ReturnType<typeof nativeDistribution>;
    try {
      layout = nativeDistribution(h);
    } catch (error) {
      refuse(`a histogram of "${l.name}" is invalid: ${(error as Error).message}`, one);
      return;
    }
    const r = base();
    r.name = l.name;
    r.kind = gauge
      ? 'gauge_histogram'
      : layout.form === 'explicit'
        ? 'histogram'
        : 'exponential_histogram';
    r.unit = unit;
    r.tags = l.tags;
    r.runRef = l.runRef;
    r.env = l.env;
    r.tMs = h.timestamp;
    r.count = h.count;
    r.sum = finite(h.sum) ? h.sum : null;
    r.sketch = encodeDistribution(layout);
    r.startAtMs = gauge ? null : start;
    push(r, one);
  }

  function familyRecord(f: FamilyPoint): void {
    const held = { samples: f.samples, histograms: 0, exemplars: f.exemplars.length };
    const late = timeRefusal(f.name, f.tMs, f.startMs);
    if (late) {
      refuse(late, held);
      return;
    }
    if (f.invalid) {
      refuse(f.invalid, held);
      return;
    }
    if (f.form === 'histogram' && !whole(f)) {
      histogramParts(f);
      return;
    }
    const count = f.count ?? (f.form === 'histogram' ? f.infBucket : null);
    if (count !== null && count < 0) {
      refuse(`the count of "${f.name}" is negative`, held);
      return;
    }
    if (count === null) {
      // Its count is not in this request: each part stays the series it is (the exemplars
      // with the first).
      const nParts = f.parts.length / 3;
      out.notStored += f.samples - nParts;
      if (nParts === 0) out.notStored += f.exemplars.length;
      for (let i = 0; i < nParts; i++) {
        const seriesIndex = f.parts[3 * i] as number;
        const p = {
          name: (labels[seriesIndex] as Labelled).name,
          labelled: labels[seriesIndex] as Labelled,
          kind: f.parts[3 * i + 2] === 1 ? ('gauge' as const) : ('counter' as const),
          value: request.series[seriesIndex]?.values[f.parts[3 * i + 1] as number] as number,
        };
        const r = base();
        r.name = p.name;
        r.kind = p.kind;
        r.unit = f.unit;
        r.tags = p.labelled.tags;
        r.runRef = p.labelled.runRef;
        r.env = p.labelled.env;
        r.tMs = f.tMs;
        r.last = p.value;
        r.lastAtMs = f.tMs;
        if (p.kind === 'counter') r.startAtMs = f.startMs;
        else {
          r.min = p.value;
          r.max = p.value;
        }
        const ex = i === 0 ? f.exemplars : [];
        if (ex.length > 0) r.exemplars = ex;
        push(r, { samples: 1, histograms: 0, exemplars: ex.length });
      }
      return;
    }
    const r = base();
    r.name = f.name;
    r.unit = f.unit;
    r.tags = f.labelled.tags;
    r.runRef = f.labelled.runRef;
    r.env = f.labelled.env;
    r.tMs = f.tMs;
    r.count = count;
    r.sum = f.sum;
    r.startAtMs = f.startMs;
    if (f.exemplars.length > 0) r.exemplars = f.exemplars;
    if (f.form === 'summary') {
      r.kind = 'summary';
      r.quantiles = [...(f.quantiles ?? [])]
        .sort(([a], [b]) => a - b)
        .map(([q, value]) => ({ q, value }));
      push(r, held);
      return;
    }
    r.kind = 'histogram';
    const sketch = sketchOf(f.name, f.les, f.bucketCounts, count);
    if (typeof sketch === 'string') {
      refuse(sketch, held);
      return;
    }
    r.sketch = sketch;
    push(r, held);
  }

  /** Whether the request holds the whole histogram point: +Inf, sum, count, every `le`. */
  function whole(f: FamilyPoint): boolean {
    if (f.infBucket === null || f.sum === null || f.count === null) return false;
    const les = context.lesOf(f.name, f.labelsKey);
    if (les === undefined) return false;
    for (const le of les) if (!f.les.includes(le)) return false;
    return true;
  }

  /** A histogram point the request holds part of: its finite parts, for the caller. */
  function histogramParts(f: FamilyPoint): void {
    const finiteParts = f.parts.length / 3;
    out.notStored += f.samples - finiteParts;
    if (finiteParts === 0) {
      out.notStored += f.exemplars.length;
      return;
    }
    out.parts.push({
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

/** A label value as a number, as `le` is read (exported for parts merged later). */
export const leNumber = (text: string): number => labelNumber(text);
