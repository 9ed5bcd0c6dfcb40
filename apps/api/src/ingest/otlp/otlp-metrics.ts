// OTLP metrics (ExportMetricsServiceRequest) decoded with the OpenTelemetry project's own
// generated protobuf code, or read from OTLP/JSON, and mapped to records per data point:
// Sum, Gauge, Histogram, ExponentialHistogram and Summary, as the specification defines
// them (opentelemetry-proto opentelemetry/proto/metrics/v1/metrics.proto v1.5). Here: the
// walk over requests and what every point shares (tags, times, flags); each kind's own
// fields in number-points.ts, histogram-points.ts and summary-points.ts.
import type { MetricRecord } from '../../domain/metric-record.ts';
import { emptyRecord } from '../metric-records.ts';
import { exponentialHistogramPoint, histogramPoint } from './histogram-points.ts';
import { gaugePoint, sumPoint } from './number-points.ts';
import {
  type BasePoint,
  CONTAINER_FIELDS,
  type ExpHistogramPoint,
  type ExportMetricsRequest,
  type Metric,
  type NumberPoint,
  OtlpDecodeError,
  proto,
  type ResourceMessage,
  type ScopeMessage,
  type SummaryPoint,
} from './otlp-message.ts';
import { OtlpReader, StringTable } from './otlp-reader.ts';
import {
  envOf,
  OtlpTagSets,
  RUN_ATTRIBUTE,
  resourceTagsOf,
  type Scope,
  scopeOf,
  type TagNode,
  tooLong,
} from './otlp-tags.ts';
import { anyValueText, inRange, nanosToMs, num, OTLP_LIMITS } from './otlp-values.ts';
import { summaryPoint } from './summary-points.ts';

const strings = new StringTable();

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

/** Why a metric's points are all refused for its name, or null. */
function refusedName(name: string): string | null {
  if (!name) return 'a metric without a name';
  if (Buffer.byteLength(name) > OTLP_LIMITS.nameBytes) {
    return `a metric name longer than ${OTLP_LIMITS.nameBytes} bytes ("${name.slice(0, 40)}...")`;
  }
  return null;
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
  const refused = refusedName(name);
  if (refused) {
    reject(points.length, refused);
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
    const base = emptyRecord('otlp', name, unit, tags, runRef, env, timeMs);
    const why = metric.gauge
      ? gaugePoint(p as NumberPoint, base)
      : metric.sum
        ? sumPoint(p as NumberPoint, base, metric.sum, startMs)
        : metric.histogram
          ? histogramPoint(p, base, metric.histogram, startMs, pointIndex)
          : metric.exponentialHistogram
            ? exponentialHistogramPoint(
                p as ExpHistogramPoint,
                base,
                metric.exponentialHistogram,
                startMs,
                pointIndex,
              )
            : summaryPoint(p as SummaryPoint, base, startMs);
    if (why === null) out.records.push(base);
    else reject(1, why);
  }
}
