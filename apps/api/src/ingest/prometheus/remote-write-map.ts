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
// This module sorts each series into those; the label sets are read in
// remote-write-labels.ts, the families gathered in remote-write-families.ts, a series' own
// samples made records in remote-write-records.ts, and the result kept in
// remote-write-outcome.ts.
import type { StoredExemplar } from '../../domain/metric-record.ts';
import { seriesExemplars } from './remote-write-exemplars.ts';
import { FamilyPoints, type HistogramContext } from './remote-write-families.ts';
import { type Labelled, type LabelSet, labelSetsOf } from './remote-write-labels.ts';
import { type MappedWrite, WriteOutcome } from './remote-write-outcome.ts';
import { METRIC_TYPE, type WireRequest, type WireSeries } from './remote-write-reader.ts';
import { nativeRecord, plainRecord } from './remote-write-records.ts';

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

/** One request read alone: a point is whole when its `+Inf` bucket, sum and count are in it. */
const ALONE: HistogramContext = { lesOf: () => [], histogramFamilies: new Set() };

/** One request being mapped: what reading each of its series needs. */
interface Mapping {
  request: WireRequest;
  context: HistogramContext;
  /** Per series, in the request's order: its labels' meaning, or why they are refused. */
  labels: (Labelled | string)[];
  /** Families the request shows to be classic histograms (by their buckets). */
  bucketFamilies: Set<string>;
  /** Families the request shows to be summaries (by their quantiles). */
  quantileFamilies: Set<string>;
  points: FamilyPoints;
  outcome: WriteOutcome;
}

export function mapRemoteWrite(
  request: WireRequest,
  context: HistogramContext = ALONE,
  sets: LabelSet[] = labelSetsOf(request),
): MappedWrite {
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
  const m: Mapping = {
    request,
    context,
    labels,
    bucketFamilies,
    quantileFamilies,
    points: new FamilyPoints(),
    outcome: new WriteOutcome(),
  };
  for (let index = 0; index < request.series.length; index++) {
    mapSeries(m, request.series[index] as WireSeries, index);
  }
  m.points.records(m.outcome, context, labels, request);
  return m.outcome.mapped;
}

/** The type the request gives a family (1.0: metadata by family name). */
function typeOf(request: WireRequest, s: WireSeries, family: string): number {
  // Most requests carry no metadata: no look-up per sample then.
  const meta = request.metadata;
  return s.type || (meta.size === 0 ? 0 : meta.get(family)?.type || 0);
}

/** The unit the request gives a family, in UCUM. */
function unitOf(request: WireRequest, s: WireSeries, family: string): string | null {
  const meta = request.metadata;
  const unit = s.unit || (meta.size === 0 ? null : meta.get(family)?.unit || null);
  return unit === null ? null : (UCUM[unit] ?? unit);
}

function mapSeries(m: Mapping, s: WireSeries, index: number): void {
  const { outcome, request } = m;
  const nSamples = s.values.length;
  const nHistograms = s.histograms.length;
  const total = outcome.mapped.total;
  total.samples += nSamples;
  total.histograms += nHistograms;
  total.exemplars += s.exemplars.length;
  const l = m.labels[index] as Labelled | string;
  if (typeof l === 'string') {
    outcome.refuse(l, {
      samples: nSamples,
      histograms: nHistograms,
      exemplars: s.exemplars.length,
    });
    return;
  }
  const exemplars = seriesExemplars(outcome, s, l);
  if (nSamples > 0 && nHistograms > 0) {
    outcome.refuse(`series "${l.name}" carries both samples and histograms`, {
      samples: nSamples,
      histograms: nHistograms,
      exemplars: exemplars.length,
    });
    return;
  }
  const name = l.name;
  const before = outcome.mapped.records.length;
  const notStoredBefore = outcome.mapped.notStored;
  if (nHistograms > 0) {
    const type = typeOf(request, s, name);
    const unit = unitOf(request, s, name);
    for (const h of s.histograms) nativeRecord(outcome, s, h, l, type, unit);
    outcome.attach(exemplars, before, notStoredBefore);
    return;
  }
  if (nSamples === 0) return; // metadata (or exemplars) alone
  const role = familyRole(m, s, l);
  if (role.part === null) {
    const t =
      typeOf(request, s, name) ||
      (name.endsWith('_total') ? typeOf(request, s, name.slice(0, -6)) : 0) ||
      (name.endsWith('_total') ? METRIC_TYPE.counter : METRIC_TYPE.gauge);
    const kind = t === METRIC_TYPE.counter || role.cumulative ? 'counter' : 'gauge';
    for (let i = 0; i < nSamples; i++) {
      plainRecord(outcome, s, i, l, kind, unitOf(request, s, name));
    }
    outcome.attach(exemplars, before, notStoredBefore);
    return;
  }
  familySamples(m, s, index, l, role, exemplars);
}

/** Which classic family a series of samples is a part of, and as what; or none. */
type FamilyRole =
  | {
      form: 'histogram' | 'summary';
      family: string;
      part: 'bucket' | 'sum' | 'count' | 'quantile';
    }
  | {
      part: null;
      /** A summary's `_sum` or `_count` alone: a cumulative counter, not a gauge. */
      cumulative: boolean;
    };

const NO_FAMILY: FamilyRole = { part: null, cumulative: false };

function familyRole(m: Mapping, s: WireSeries, l: Labelled): FamilyRole {
  const { request } = m;
  const name = l.name;
  if (l.bucketOf !== null) {
    const b = l.bucketOf;
    const t = typeOf(request, s, b);
    if (t === METRIC_TYPE.unknown || t === METRIC_TYPE.histogram)
      return { form: 'histogram', family: b, part: 'bucket' };
  } else if (l.sumOf !== null) {
    const b = l.sumOf;
    const t = typeOf(request, s, b);
    const which = name.endsWith('_sum') ? 'sum' : 'count';
    // A family's _sum and _count join it only beside its buckets (or quantiles) in this
    // request: alone (a family split across requests by Prometheus' shards) they stay the
    // series they are, cumulative counters when the family is typed so, as a point of them
    // would take the time of the family's point sent in another request, and one of the
    // two would be dropped as a retry.
    if ((t === METRIC_TYPE.histogram || t === 0) && m.bucketFamilies.has(b))
      return { form: 'histogram', family: b, part: which };
    if ((t === METRIC_TYPE.summary || t === 0) && m.quantileFamilies.has(b))
      return { form: 'summary', family: b, part: which };
    if (
      t === METRIC_TYPE.histogram ||
      (t === 0 && m.context.histogramFamilies.has(b) && !m.quantileFamilies.has(b))
    ) {
      // A part of a histogram point whose other parts come in other requests.
      return { form: 'histogram', family: b, part: which };
    }
    if (t === METRIC_TYPE.summary) return { part: null, cumulative: true };
  } else if (l.tags.quantile !== undefined) {
    const t = typeOf(request, s, name);
    if (t === METRIC_TYPE.unknown || t === METRIC_TYPE.summary)
      return { form: 'summary', family: name, part: 'quantile' };
  }
  return NO_FAMILY;
}

/** A series' samples into the points of the family it is part of. */
function familySamples(
  m: Mapping,
  s: WireSeries,
  index: number,
  l: Labelled,
  role: Exclude<FamilyRole, { part: null }>,
  exemplars: StoredExemplar[],
): void {
  const { form, family, part } = role;
  const name = l.name;
  const nSamples = s.values.length;
  const drop = part === 'bucket' ? 'le' : part === 'quantile' ? 'quantile' : null;
  for (let i = 0; i < nSamples; i++) {
    const v = s.values[i] as number;
    const f = m.points.point(
      form,
      family,
      l,
      drop,
      unitOf(m.request, s, family),
      s.times[i] as number,
    );
    if (i === nSamples - 1 && exemplars.length > 0) f.exemplars.push(...exemplars);
    f.samples++;
    const start = (s.starts[i] as number) || s.createdMs;
    if (start) f.startMs = Math.max(f.startMs, start);
    if (!Number.isFinite(v)) continue; // a stale marker (the family ends), or no number
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
