// What a remote-write series' label set says, worked out once per label set: its name, tags,
// run (`meshbench_run`, no tag) and environment (`env`), or why its labels are refused; the
// metric families its name may belong to (a classic histogram's `_bucket` series with `le`,
// `_sum`/`_count`, the OpenMetrics suffixes); and a family label set's key.
import { createHash } from 'node:crypto';
import { OTLP_LIMITS } from '../otlp/otlp-values.ts';
import type { WireRequest, WireSeries } from './remote-write-reader.ts';

export const RUN_LABEL = 'meshbench_run';
export const ENV_LABEL = 'env';

export interface Labelled {
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
export function labelledOf(
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
  /**
   * The write service's memo that none of its families has kept metadata: in which scope's
   * memory (null: no memo), at which version of it, and until when (the families' soonest).
   */
  bare: { kept: object; version: number; until: number } | null;
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
  return { meaning: labelsOf(labels), families, bucketOf, sumOf, bare: null };
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

/** A label value as a number ("+Inf" included), as Prometheus parses `le` and `quantile`. */
function labelNumber(text: string): number {
  const t = text.trim();
  if (t === '+Inf' || t === 'Inf' || t === '+inf' || t === 'inf') return Number.POSITIVE_INFINITY;
  if (t === '-Inf' || t === '-inf') return Number.NEGATIVE_INFINITY;
  return t === '' ? Number.NaN : Number(t);
}

/** A label value as a number, as `le` is read (exported for parts merged later). */
export const leNumber = (text: string): number => labelNumber(text);

/** The key of a family's label set: its run label and tags (sorted, without `le`). */
export function labelsKeyOf(runRef: string | null, tags: Record<string, string>): string {
  return createHash('sha256')
    .update(`${runRef ?? ''}\u0000${JSON.stringify(tags)}`)
    .digest('base64url');
}
