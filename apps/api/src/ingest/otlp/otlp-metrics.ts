// OTLP metrics (ExportMetricsServiceRequest) decoded with the OpenTelemetry project's own
// generated protobuf code, or read from OTLP/JSON, and mapped to records per data point:
// Sum, Gauge, Histogram, ExponentialHistogram and Summary, as the specification defines
// them. Resource and scope attributes become tags. Histograms keep their layout: explicit
// bounds and counts, or the exponential scale, zero count, zero threshold and buckets
// (opentelemetry-proto opentelemetry/proto/metrics/v1/metrics.proto v1.5, the fields of
// HistogramDataPoint and ExponentialHistogramDataPoint); a layout the data model forbids is
// refused as a whole request (400) naming the metric, the point and the field.
import root from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import protobuf from 'protobufjs/minimal.js';
import { encodeDistribution } from '../../domain/distribution.ts';
import type { MetricRecord } from '../metric-record.ts';
import { OtlpReader, StringTable } from './otlp-reader.ts';

type Int64 = number | string | { toNumber(): number } | null | undefined;

interface KeyValue {
  key: string;
  value?: AnyValue | null;
}
interface AnyValue {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: Int64;
  doubleValue?: number | string | null;
  arrayValue?: { values?: AnyValue[] | null } | null;
  kvlistValue?: { values?: KeyValue[] | null } | null;
  bytesValue?: unknown;
}
interface BasePoint {
  attributes?: KeyValue[] | null;
  startTimeUnixNano?: Int64;
  timeUnixNano?: Int64;
  flags?: number | null;
}
interface NumberPoint extends BasePoint {
  asDouble?: number | string | null;
  asInt?: Int64;
}
interface HistogramPoint extends BasePoint {
  count?: Int64;
  sum?: number | string | null;
  min?: number | string | null;
  max?: number | string | null;
  bucketCounts?: Int64[] | null;
  explicitBounds?: (number | string)[] | null;
}
interface ExpBuckets {
  offset?: number | null;
  bucketCounts?: Int64[] | null;
}
interface ExpHistogramPoint extends HistogramPoint {
  scale?: number | null;
  zeroCount?: Int64;
  zeroThreshold?: number | string | null;
  positive?: ExpBuckets | null;
  negative?: ExpBuckets | null;
}
interface SummaryPoint extends BasePoint {
  count?: Int64;
  sum?: number | string | null;
  quantileValues?: { quantile?: number | null; value?: number | null }[] | null;
}
type Temporality = number | string | null | undefined;
interface Metric {
  name?: string | null;
  unit?: string | null;
  gauge?: { dataPoints?: NumberPoint[] | null } | null;
  sum?: {
    dataPoints?: NumberPoint[] | null;
    aggregationTemporality?: Temporality;
    isMonotonic?: boolean | null;
  } | null;
  histogram?: { dataPoints?: HistogramPoint[] | null; aggregationTemporality?: Temporality } | null;
  exponentialHistogram?: {
    dataPoints?: ExpHistogramPoint[] | null;
    aggregationTemporality?: Temporality;
  } | null;
  summary?: { dataPoints?: SummaryPoint[] | null } | null;
}
export interface ExportMetricsRequest {
  resourceMetrics?:
    | {
        resource?: { attributes?: KeyValue[] | null } | null;
        scopeMetrics?:
          | {
              scope?: {
                name?: string | null;
                version?: string | null;
                attributes?: KeyValue[] | null;
              } | null;
              metrics?: Metric[] | null;
            }[]
          | null;
      }[]
    | null;
}

interface ProtoType<T> {
  decode(bytes: Uint8Array | OtlpReader): T;
  encode(message: unknown): { finish(): Uint8Array };
  fromObject(o: object): unknown;
}
interface Decoder<T> {
  decode(reader: OtlpReader, length: number): T;
}
type ResourceMessage = NonNullable<NonNullable<ExportMetricsRequest['resourceMetrics']>[number]>;
type ScopeMessage = NonNullable<NonNullable<ResourceMessage['scopeMetrics']>[number]>;
export interface Encoder {
  fromObject(o: object): unknown;
  encode(message: unknown): { finish(): Uint8Array };
}
const proto = (
  root as unknown as {
    opentelemetry: {
      proto: {
        collector: { metrics: { v1: { ExportMetricsServiceRequest: Encoder } } };
        resource: { v1: { Resource: Decoder<NonNullable<ResourceMessage['resource']>> } };
        common: { v1: { InstrumentationScope: Decoder<NonNullable<ScopeMessage['scope']>> } };
        metrics: {
          v1: { Metric: Decoder<Metric>; ResourceMetrics: Encoder; ScopeMetrics: Encoder };
        };
      };
    };
  }
).opentelemetry.proto;

/** The number of the one field the generated encoder writes for `object`. */
function fieldNumber(type: Encoder, object: object): number {
  const bytes = type.encode(type.fromObject(object)).finish();
  return protobuf.Reader.create(bytes).uint32() >>> 3;
}

/**
 * Field numbers of the containers walked by mapOtlpProtobuf, taken from the OpenTelemetry
 * project's generated encoders rather than written here (1, 1, 2, 1 and 2 in
 * opentelemetry-proto's metrics.proto).
 */
export const CONTAINER_FIELDS = {
  resourceMetrics: fieldNumber(proto.collector.metrics.v1.ExportMetricsServiceRequest, {
    resourceMetrics: [{}],
  }),
  resource: fieldNumber(proto.metrics.v1.ResourceMetrics, { resource: {} }),
  scopeMetrics: fieldNumber(proto.metrics.v1.ResourceMetrics, { scopeMetrics: [{}] }),
  scope: fieldNumber(proto.metrics.v1.ScopeMetrics, { scope: {} }),
  metrics: fieldNumber(proto.metrics.v1.ScopeMetrics, { metrics: [{}] }),
};
const v1 = (
  root as unknown as {
    opentelemetry: {
      proto: {
        collector: {
          metrics: {
            v1: {
              ExportMetricsServiceResponse: ProtoType<unknown>;
            };
          };
        };
      };
    };
  }
).opentelemetry.proto.collector.metrics.v1;

export class OtlpDecodeError extends Error {}

/** Scales the data model allows an exponential histogram (metrics.proto: -10 to 20). */
export const EXPONENTIAL_SCALE_RANGE = [-10, 20] as const;

const strings = new StringTable();

export function decodeOtlpJson(text: string): ExportMetricsRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new OtlpDecodeError(`the JSON body could not be parsed: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new OtlpDecodeError('the JSON body must be an ExportMetricsServiceRequest object');
  }
  const rm = (parsed as ExportMetricsRequest).resourceMetrics;
  if (rm !== undefined && rm !== null && !Array.isArray(rm)) {
    throw new OtlpDecodeError('"resourceMetrics" must be an array');
  }
  return parsed as ExportMetricsRequest;
}

/**
 * ExportMetricsServiceResponse as protobuf, with partial_success when points were rejected
 * or there is something to say of accepted ones (the specification's warning form: zero
 * rejected with a message).
 */
export function encodeOtlpResponse(rejected: number, message: string): Uint8Array {
  const body =
    rejected > 0 || message
      ? { partialSuccess: { rejectedDataPoints: rejected, errorMessage: message } }
      : {};
  return v1.ExportMetricsServiceResponse.encode(
    v1.ExportMetricsServiceResponse.fromObject(body),
  ).finish();
}

/**
 * What a data point may carry: longer names or values are refused (named in the response's
 * partial_success), as are times Postgres cannot hold or a start after the point's time.
 */
export const OTLP_LIMITS = {
  nameBytes: 1024,
  attributeKeyBytes: 1024,
  attributeValueBytes: 4096,
  /** timestamptz's range, in Unix ms: 4713 BC is out of reach anyway, so from 1970. */
  minTimeMs: 0,
  maxTimeMs: Date.UTC(9999, 11, 31, 23, 59, 59, 999),
} as const;

/** An int64 as exact decimal text, or null when a float8 holds it exactly (|v| <= 2^53). */
function exactInt(v: Int64): string | null {
  if (v === null || v === undefined) return null;
  const text =
    typeof v === 'object'
      ? String(v)
      : typeof v === 'string'
        ? v.trim()
        : Number.isInteger(v)
          ? String(v)
          : null;
  if (text === null || !/^-?\d+$/.test(text)) return null;
  const big = BigInt(text);
  const limit = 2n ** 53n;
  return big > limit || big < -limit ? big.toString() : null;
}

const num = (v: Int64 | number | string): number => {
  if (typeof v === 'number') return v;
  if (v === null || v === undefined) return 0;
  if (typeof v === 'string') return Number(v);
  // Not a number and no Long (protojson with an object where an int64 belongs): NaN, so the
  // point is refused by the range checks with its name, not the request with a TypeError.
  return typeof v.toNumber === 'function' ? v.toNumber() : Number.NaN;
};

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Whether an int64 field holds an int64 (protojson sends them as decimal strings). */
function isInt64(v: Int64): boolean {
  if (typeof v === 'number') return Number.isInteger(v);
  if (typeof v === 'string') {
    if (!/^-?\d{1,20}$/.test(v)) return false;
    const big = BigInt(v);
    return big >= INT64_MIN && big <= INT64_MAX;
  }
  return v !== null && v !== undefined && typeof v.toNumber === 'function';
}
const optNum = (v: number | string | null | undefined): number | null =>
  v === null || v === undefined ? null : Number(v);
const nanosToMs = (v: Int64): number => num(v) / 1e6;

function anyValueText(v: AnyValue | null | undefined): string {
  if (!v) return '';
  if (v.stringValue !== undefined && v.stringValue !== null) return v.stringValue;
  if (v.boolValue !== undefined && v.boolValue !== null) return String(v.boolValue);
  if (v.intValue !== undefined && v.intValue !== null) return String(num(v.intValue));
  if (v.doubleValue !== undefined && v.doubleValue !== null) return String(Number(v.doubleValue));
  if (v.arrayValue) return JSON.stringify((v.arrayValue.values ?? []).map(anyValueText));
  if (v.kvlistValue) {
    return JSON.stringify(
      Object.fromEntries(
        (v.kvlistValue.values ?? []).map((kv) => [kv.key, anyValueText(kv.value)]),
      ),
    );
  }
  return '';
}

function addAttributes(into: Record<string, string>, attrs: KeyValue[] | null | undefined): void {
  if (!attrs) return;
  for (const kv of attrs) {
    if (kv && typeof kv.key === 'string') into[kv.key] = anyValueText(kv.value);
  }
}

const CUMULATIVE = 2;
const DELTA = 1;
function temporality(t: Temporality): number {
  if (typeof t === 'number') return t;
  if (t === 'AGGREGATION_TEMPORALITY_CUMULATIVE') return CUMULATIVE;
  if (t === 'AGGREGATION_TEMPORALITY_DELTA') return DELTA;
  return 0;
}

const inRange = (ms: number) =>
  Number.isFinite(ms) && ms >= OTLP_LIMITS.minTimeMs && ms <= OTLP_LIMITS.maxTimeMs;

/** Data point flag: FLAG_NO_RECORDED_VALUE (a gap, not a value). */
const NO_RECORDED_VALUE = 1;

export interface MappedRequest {
  records: MetricRecord[];
  /** Data points that were not stored. */
  rejected: number;
  /** Why, each reason with how many points it refused, in the order first seen. */
  reasons: Map<string, number>;
  dataPoints: number;
}

/** The reasons as one message: "3 data point(s): reason; 1 data point(s): other". */
export const reasonsText = (reasons: Map<string, number>): string =>
  [...reasons].map(([why, n]) => `${n} data point(s): ${why}`).join('; ');

export const RUN_ATTRIBUTE = 'meshbench.run';
const ENV_ATTRIBUTES = ['deployment.environment.name', 'deployment.environment'];
const envOf = (tags: Record<string, string>): string | null =>
  tags[ENV_ATTRIBUTES[0] as string] || tags[ENV_ATTRIBUTES[1] as string] || null;

interface Scope {
  /** JSON of the scope's tags: where its points' tag sets are found. */
  key: string;
  tags: Record<string, string>;
  runRef: string | null;
  env: string | null;
  /** Why the resource's or scope's attributes are refused, or null. */
  tooLong: string | null;
}

interface TagSet {
  tags: Record<string, string>;
  env: string | null;
  /** Why these tags are refused (a key or value over the limits), or null. */
  tooLong: string | null;
}

function tooLong(tags: Record<string, string>): string | null {
  for (const [key, value] of Object.entries(tags)) {
    if (Buffer.byteLength(key) > OTLP_LIMITS.attributeKeyBytes) {
      return `an attribute key longer than ${OTLP_LIMITS.attributeKeyBytes} bytes ("${key.slice(0, 40)}...")`;
    }
    if (Buffer.byteLength(value) > OTLP_LIMITS.attributeValueBytes) {
      return `attribute "${key.slice(0, 100)}" has a value longer than ${OTLP_LIMITS.attributeValueBytes} bytes`;
    }
  }
  return null;
}

/** A step in the tree of tag sets: one attribute (key and value) further. */
class TagNode {
  set: TagSet | undefined;
  private children: Map<string, Map<string, TagNode>> | undefined;

  child(key: string, value: string, made: () => void): TagNode {
    if (!this.children) this.children = new Map();
    let byValue = this.children.get(key);
    if (!byValue) {
      byValue = new Map();
      this.children.set(key, byValue);
    }
    let node = byValue.get(value);
    if (!node) {
      node = new TagNode();
      byValue.set(value, node);
      made();
    }
    return node;
  }
}

/**
 * The tag sets of data points, one object per distinct set, kept across requests (every
 * export repeats its series). A point's set is found by walking its attributes, in the
 * order sent, down a tree from its scope's node: a few lookups of short strings, where one
 * key of all its attributes would be built and hashed per point. Records share these
 * objects, so their tags are read-only; the ingest service finds a series' identity by the
 * object instead of serialising it.
 */
export class OtlpTagSets {
  private scopes = new Map<string, TagNode>();
  private nodes = 0;
  private readonly made = () => {
    this.nodes++;
  };

  constructor(private readonly limit = 100_000) {}

  /** The node of a scope (by the JSON of its tags); the tree starts over past `limit` nodes. */
  scope(key: string): TagNode {
    if (this.nodes >= this.limit) {
      this.scopes = new Map();
      this.nodes = 0;
    }
    let node = this.scopes.get(key);
    if (!node) {
      node = new TagNode();
      this.scopes.set(key, node);
      this.nodes++;
    }
    return node;
  }

  child(node: TagNode, key: string, value: string): TagNode {
    return node.child(key, value, this.made);
  }
}

function resourceTagsOf(rm: ResourceMessage | null | undefined): Record<string, string> {
  const tags: Record<string, string> = {};
  addAttributes(tags, rm?.resource?.attributes);
  return tags;
}

function scopeOf(resourceTags: Record<string, string>, sm: ScopeMessage | null | undefined): Scope {
  const scopeTags: Record<string, string> = { ...resourceTags };
  if (sm?.scope?.name) scopeTags['otel.scope.name'] = sm.scope.name;
  if (sm?.scope?.version) scopeTags['otel.scope.version'] = sm.scope.version;
  addAttributes(scopeTags, sm?.scope?.attributes);
  // The run and environment are read once here; points may still name their own run.
  const runRef = scopeTags[RUN_ATTRIBUTE] || null;
  const { [RUN_ATTRIBUTE]: _run, ...tags } = scopeTags;
  return { key: JSON.stringify(tags), tags, runRef, env: envOf(tags), tooLong: tooLong(tags) };
}

function newMapped(): {
  out: MappedRequest;
  reject: (n: number, reason: string) => void;
} {
  const out: MappedRequest = { records: [], rejected: 0, reasons: new Map(), dataPoints: 0 };
  const reject = (n: number, reason: string) => {
    out.rejected += n;
    out.reasons.set(reason, (out.reasons.get(reason) ?? 0) + n);
  };
  return { out, reject };
}

export function mapOtlpMetrics(
  request: ExportMetricsRequest,
  nowMs: number,
  tagSets: OtlpTagSets = new OtlpTagSets(),
): MappedRequest {
  const { out, reject } = newMapped();
  for (const rm of request.resourceMetrics ?? []) {
    const resourceTags = resourceTagsOf(rm);
    for (const sm of rm?.scopeMetrics ?? []) {
      const scope = scopeOf(resourceTags, sm);
      for (const metric of sm?.metrics ?? []) {
        if (!metric) continue;
        mapMetric(metric, scope, tagSets, nowMs, out, reject);
      }
    }
  }
  return out;
}

/** Wire types of protobuf. */
const LENGTH_DELIMITED = 2;

/**
 * Calls `each(fieldNumber, end)` for every length-delimited field of the message that
 * ends at `end`, positioned at the field's first byte; other wire types are skipped.
 * `each` must leave the reader at the field's end (it decodes the field or skips it).
 */
function fields(reader: OtlpReader, end: number, each: (field: number, end: number) => void) {
  while (reader.pos < end) {
    const tag = reader.uint32();
    if ((tag & 7) !== LENGTH_DELIMITED) {
      reader.skipType(tag & 7);
      continue;
    }
    const length = reader.uint32();
    const fieldEnd = reader.pos + length;
    if (fieldEnd > end) throw new Error(`a field of ${length} bytes runs past its message`);
    each(tag >>> 3, fieldEnd);
    if (reader.pos !== fieldEnd) throw new Error('a message is not as long as its length says');
  }
  if (reader.pos !== end) throw new Error('a field runs past its message');
}

/**
 * Decodes and maps a protobuf ExportMetricsServiceRequest one Metric at a time: the
 * containers (request, ResourceMetrics, ScopeMetrics) are walked field by field, and every
 * Resource, InstrumentationScope and Metric is decoded by the OpenTelemetry project's
 * generated code and mapped at once. The same records as decoding the whole message and then
 * mapOtlpMetrics, but a Metric's objects die before the next one is decoded, where the
 * whole request's used to live until it was mapped (and be copied by every garbage
 * collection that ran meanwhile). Fields of these containers may come in any order, as
 * protobuf allows: each container is read twice, its Resource or scope first.
 */
export function mapOtlpProtobuf(
  bytes: Uint8Array,
  nowMs: number,
  tagSets: OtlpTagSets = new OtlpTagSets(),
): MappedRequest {
  const { out, reject } = newMapped();
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reader = new OtlpReader(buffer, strings);
  const skip = (end: number) => {
    reader.pos = end;
  };
  try {
    const F = CONTAINER_FIELDS;
    // ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics; }
    fields(reader, buffer.length, (field, rmEnd) => {
      if (field !== F.resourceMetrics) return skip(rmEnd);
      // ResourceMetrics { Resource resource; repeated ScopeMetrics scope_metrics; }
      const rmStart = reader.pos;
      const rm: ResourceMessage = {};
      fields(reader, rmEnd, (f, end) => {
        if (f === F.resource) {
          rm.resource = proto.resource.v1.Resource.decode(reader, end - reader.pos);
        } else skip(end);
      });
      const resourceTags = resourceTagsOf(rm);
      reader.pos = rmStart;
      fields(reader, rmEnd, (f, smEnd) => {
        if (f !== F.scopeMetrics) return skip(smEnd);
        // ScopeMetrics { InstrumentationScope scope; repeated Metric metrics; }
        const smStart = reader.pos;
        const sm: ScopeMessage = {};
        fields(reader, smEnd, (g, end) => {
          if (g === F.scope)
            sm.scope = proto.common.v1.InstrumentationScope.decode(reader, end - reader.pos);
          else skip(end);
        });
        const scope = scopeOf(resourceTags, sm);
        reader.pos = smStart;
        fields(reader, smEnd, (g, end) => {
          if (g !== F.metrics) return skip(end);
          mapMetric(
            proto.metrics.v1.Metric.decode(reader, end - reader.pos),
            scope,
            tagSets,
            nowMs,
            out,
            reject,
          );
        });
      });
    });
  } catch (error) {
    // A point the data model forbids, already worded.
    if (error instanceof OtlpDecodeError) throw error;
    // Undecodable bytes, or a decoded message of a shape the mapping could not read.
    throw new OtlpDecodeError(
      `the protobuf body could not be decoded: ${(error as Error).message}`,
    );
  }
  return out;
}

function mapMetric(
  metric: Metric,
  scope: Scope,
  tagSets: OtlpTagSets,
  nowMs: number,
  out: MappedRequest,
  reject: (n: number, reason: string) => void,
): void {
  const name = metric.name ?? '';
  const unit = metric.unit || null;
  const points: BasePoint[] =
    metric.gauge?.dataPoints ??
    metric.sum?.dataPoints ??
    metric.histogram?.dataPoints ??
    metric.exponentialHistogram?.dataPoints ??
    metric.summary?.dataPoints ??
    [];
  out.dataPoints += points.length;
  if (!name) {
    reject(points.length, 'a metric without a name');
    return;
  }
  if (Buffer.byteLength(name) > OTLP_LIMITS.nameBytes) {
    reject(
      points.length,
      `a metric name longer than ${OTLP_LIMITS.nameBytes} bytes ("${name.slice(0, 40)}...")`,
    );
    return;
  }
  if (
    !metric.gauge &&
    !metric.sum &&
    !metric.histogram &&
    !metric.exponentialHistogram &&
    !metric.summary
  ) {
    reject(Math.max(1, points.length), `metric "${name}" has no known data type`);
    return;
  }
  let scopeNode: TagNode | undefined;
  let pointIndex = -1;
  for (const p of points) {
    pointIndex++;
    if (!p) continue;
    if ((num(p.flags) & NO_RECORDED_VALUE) !== 0) continue;
    let tags = scope.tags;
    let runRef = scope.runRef;
    let env = scope.env;
    const attrs = p.attributes;
    if (attrs && attrs.length > 0) {
      let node = scopeNode ?? tagSets.scope(scope.key);
      scopeNode = node;
      for (const kv of attrs) {
        if (!kv || typeof kv.key !== 'string') continue;
        const text = anyValueText(kv.value);
        if (kv.key === RUN_ATTRIBUTE) runRef = text || runRef;
        else node = tagSets.child(node, kv.key, text);
      }
      let set = node.set;
      if (!set) {
        const own = Object.assign({}, scope.tags);
        for (const kv of attrs) {
          if (kv && typeof kv.key === 'string' && kv.key !== RUN_ATTRIBUTE) {
            own[kv.key] = anyValueText(kv.value);
          }
        }
        set = { tags: own, env: envOf(own), tooLong: tooLong(own) };
        node.set = set;
      }
      tags = set.tags;
      env = set.env;
      if (set.tooLong) {
        reject(1, set.tooLong);
        continue;
      }
    } else if (scope.tooLong) {
      reject(1, scope.tooLong);
      continue;
    }
    const timeMs = p.timeUnixNano ? nanosToMs(p.timeUnixNano) : nowMs;
    const startMs = p.startTimeUnixNano ? nanosToMs(p.startTimeUnixNano) : null;
    if (!inRange(timeMs) || (startMs !== null && !inRange(startMs))) {
      reject(1, `a data point of "${name}" has a time outside 1970-9999`);
      continue;
    }
    if (startMs !== null && startMs > timeMs) {
      reject(1, `a data point of "${name}" starts after its time`);
      continue;
    }
    // Every record is built with the same fields in the same order (one object shape).
    const base: MetricRecord = {
      source: 'otlp',
      name,
      kind: 'gauge',
      unit,
      tags,
      runRef,
      env,
      tMs: timeMs,
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
    };
    if (metric.gauge || metric.sum) {
      const np = p as NumberPoint;
      const hasDouble = np.asDouble !== undefined && np.asDouble !== null;
      const hasInt = np.asInt !== undefined && np.asInt !== null;
      if (!hasDouble && !hasInt) {
        reject(1, `a data point of "${name}" has no value`);
        continue;
      }
      if (!hasDouble && !isInt64(np.asInt)) {
        reject(1, `a data point of "${name}" has an asInt that is not an int64`);
        continue;
      }
      const value = hasDouble ? Number(np.asDouble) : num(np.asInt);
      if (!Number.isFinite(value)) {
        reject(1, `a data point of "${name}" is not a finite number`);
        continue;
      }
      if (metric.gauge) {
        base.last = value;
        base.min = value;
        base.max = value;
        base.lastAtMs = timeMs;
        // An int64 beyond 2^53 (a config version hash) is kept exactly beside the float.
        if (!hasDouble) base.lastExact = exactInt(np.asInt);
        out.records.push(base);
        continue;
      }
      const sum = metric.sum as NonNullable<Metric['sum']>;
      base.kind = sum.isMonotonic ? 'counter' : 'updowncounter';
      const t = temporality(sum.aggregationTemporality);
      if (t === CUMULATIVE) {
        // The running total is kept as sent; reads turn consecutive points into increases.
        base.last = value;
        base.startAtMs = startMs ?? 0;
        base.lastAtMs = timeMs;
        out.records.push(base);
      } else if (t === DELTA) {
        // A delta covers [start_time, time]: placed at its start, as long as it lasted.
        base.sum = value;
        if (startMs !== null) {
          base.tMs = startMs;
          base.intervalMs = timeMs - startMs;
        }
        out.records.push(base);
      } else {
        reject(1, `sum "${name}" has no aggregation temporality`);
      }
      continue;
    }
    if (metric.histogram || metric.exponentialHistogram) {
      const hp = p as ExpHistogramPoint;
      const t = temporality(
        (metric.histogram ?? metric.exponentialHistogram)?.aggregationTemporality,
      );
      if (t !== CUMULATIVE && t !== DELTA) {
        reject(1, `histogram "${name}" has no aggregation temporality`);
        continue;
      }
      const count = num(hp.count);
      const min = optNum(hp.min);
      const max = optNum(hp.max);
      const at = `${metric.histogram ? 'histogram' : 'exponentialHistogram'} "${name}" dataPoints[${pointIndex}]`;
      const distribution = metric.histogram ? explicitLayout(hp, at) : exponentialLayout(hp, at);
      base.kind = metric.histogram ? 'histogram' : 'exponential_histogram';
      base.count = count;
      base.sum = optNum(hp.sum);
      base.min = min;
      base.max = max;
      base.sketch = distribution;
      base.startAtMs = t === CUMULATIVE ? (startMs ?? 0) : null;
      if (t === DELTA && startMs !== null) {
        base.tMs = startMs;
        base.intervalMs = timeMs - startMs;
      }
      out.records.push(base);
      continue;
    }
    // Summary: count and sum since the start (cumulative by definition), quantiles as sent.
    const sp = p as SummaryPoint;
    base.kind = 'summary';
    base.count = num(sp.count);
    base.sum = optNum(sp.sum);
    base.startAtMs = startMs ?? 0;
    base.quantiles = (sp.quantileValues ?? []).map((q) => ({
      q: Number(q.quantile ?? 0),
      value: Number(q.value ?? 0),
    }));
    out.records.push(base);
  }
}

const invalid = (at: string, what: string) => new OtlpDecodeError(`${at}: ${what}`);

/** An explicit-bucket point's bounds and counts, checked; null when it has no buckets. */
function explicitLayout(hp: HistogramPoint, at: string): Uint8Array | null {
  const counts = (hp.bucketCounts ?? []).map(num);
  const bounds = (hp.explicitBounds ?? []).map(Number);
  if (counts.length === 0 && bounds.length === 0) return null;
  if (counts.length !== bounds.length + 1) {
    throw invalid(
      at,
      `bucketCounts has ${counts.length} entries for ${bounds.length} explicitBounds (must be ${bounds.length + 1})`,
    );
  }
  for (let i = 0; i < bounds.length; i++) {
    const b = bounds[i] as number;
    if (!Number.isFinite(b)) throw invalid(at, `explicitBounds[${i}] is not a finite number`);
    if (i > 0 && !(b > (bounds[i - 1] as number))) {
      throw invalid(
        at,
        `explicitBounds must be strictly increasing (explicitBounds[${i}] = ${b} after ${bounds[i - 1]})`,
      );
    }
  }
  counts.forEach((c, i) => {
    if (!(c >= 0)) throw invalid(at, `bucketCounts[${i}] is not a count`);
  });
  return encodeDistribution({ form: 'explicit', bounds, counts });
}

/** An exponential point's scale, zero bucket and buckets, checked and kept as laid out. */
function exponentialLayout(hp: ExpHistogramPoint, at: string): Uint8Array {
  const scale = hp.scale ?? 0;
  const [lo, hi] = EXPONENTIAL_SCALE_RANGE;
  if (!Number.isInteger(scale) || scale < lo || scale > hi) {
    throw invalid(at, `scale ${scale} is outside [${lo}, ${hi}]`);
  }
  const zeroCount = num(hp.zeroCount);
  if (!(zeroCount >= 0)) throw invalid(at, 'zeroCount is not a count');
  const zeroThreshold = optNum(hp.zeroThreshold) ?? 0;
  if (!(zeroThreshold >= 0) || !Number.isFinite(zeroThreshold)) {
    throw invalid(at, 'zeroThreshold is not a finite number >= 0');
  }
  const side = (b: ExpBuckets | null | undefined, field: 'positive' | 'negative') => {
    if (!b) return { offset: 0, bucketCounts: [] };
    const offset = b.offset ?? 0;
    if (!Number.isInteger(offset)) throw invalid(at, `${field}.offset is not an integer`);
    const bucketCounts = (b.bucketCounts ?? []).map(num);
    bucketCounts.forEach((c, i) => {
      if (!(c >= 0)) throw invalid(at, `${field}.bucketCounts[${i}] is not a count`);
    });
    return { offset, bucketCounts };
  };
  return encodeDistribution({
    form: 'exponential',
    scale,
    zeroCount,
    zeroThreshold,
    positive: side(hp.positive, 'positive'),
    negative: side(hp.negative, 'negative'),
  });
}
