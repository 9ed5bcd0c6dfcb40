// The OTLP metrics messages (opentelemetry-proto opentelemetry/proto/metrics/v1/metrics.proto
// and collector/metrics/v1/metrics_service.proto v1.5) as the OpenTelemetry project's
// generated protobuf code and OTLP/JSON both give them, that code itself, and the response.
import root from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import protobuf from 'protobufjs/minimal.js';
import type { OtlpReader } from './otlp-reader.ts';

export type Int64 = number | string | { toNumber(): number } | null | undefined;

export interface KeyValue {
  key: string;
  value?: AnyValue | null;
}
export interface AnyValue {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: Int64;
  doubleValue?: number | string | null;
  arrayValue?: { values?: AnyValue[] | null } | null;
  kvlistValue?: { values?: KeyValue[] | null } | null;
  bytesValue?: unknown;
}
export interface BasePoint {
  attributes?: KeyValue[] | null;
  startTimeUnixNano?: Int64;
  timeUnixNano?: Int64;
  flags?: number | null;
}
export interface NumberPoint extends BasePoint {
  asDouble?: number | string | null;
  asInt?: Int64;
}
export interface HistogramPoint extends BasePoint {
  count?: Int64;
  sum?: number | string | null;
  min?: number | string | null;
  max?: number | string | null;
  bucketCounts?: Int64[] | null;
  explicitBounds?: (number | string)[] | null;
}
export interface ExpBuckets {
  offset?: number | null;
  bucketCounts?: Int64[] | null;
}
export interface ExpHistogramPoint extends HistogramPoint {
  scale?: number | null;
  zeroCount?: Int64;
  zeroThreshold?: number | string | null;
  positive?: ExpBuckets | null;
  negative?: ExpBuckets | null;
}
export interface SummaryPoint extends BasePoint {
  count?: Int64;
  sum?: number | string | null;
  quantileValues?: { quantile?: number | null; value?: number | null }[] | null;
}
export type Temporality = number | string | null | undefined;
export interface Metric {
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
export type ResourceMessage = NonNullable<
  NonNullable<ExportMetricsRequest['resourceMetrics']>[number]
>;
export type ScopeMessage = NonNullable<NonNullable<ResourceMessage['scopeMetrics']>[number]>;
export interface Encoder {
  fromObject(o: object): unknown;
  encode(message: unknown): { finish(): Uint8Array };
}
export const proto = (
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

/** A request the decoder refuses as a whole (400), already worded. */
export class OtlpDecodeError extends Error {}

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
