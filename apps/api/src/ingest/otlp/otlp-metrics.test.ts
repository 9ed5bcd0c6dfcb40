import root from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import protobuf from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { decodeDistribution } from '../../domain/distribution.ts';
import {
  CONTAINER_FIELDS,
  decodeOtlpJson,
  type Encoder,
  type ExportMetricsRequest,
  encodeOtlpResponse,
  OtlpDecodeError,
} from './otlp-message.ts';
import { mapOtlpMetrics, mapOtlpProtobuf } from './otlp-metrics.ts';
import { OtlpTagSets } from './otlp-tags.ts';

const NOW = Date.UTC(2026, 1, 1, 10, 0, 0);
const ns = (ms: number) => String(ms * 1e6);

function request(metrics: object[], resource: object[] = []) {
  return {
    resourceMetrics: [
      {
        resource: {
          attributes: [
            { key: 'service.name', value: { stringValue: 'consul' } },
            { key: 'meshbench.run', value: { stringValue: 'run-slug' } },
            { key: 'deployment.environment', value: { stringValue: 'staging' } },
            ...resource,
          ],
        },
        scopeMetrics: [{ scope: { name: 'agent', version: '1.9' }, metrics }],
      },
    ],
  };
}

describe('OTLP metrics mapping', () => {
  it('maps sums by monotonicity and temporality, with tags from every level', () => {
    const { records, rejected } = mapOtlpMetrics(
      decodeOtlpJson(
        JSON.stringify(
          request([
            {
              name: 'pushes',
              sum: {
                isMonotonic: true,
                aggregationTemporality: 'AGGREGATION_TEMPORALITY_CUMULATIVE',
                dataPoints: [
                  {
                    startTimeUnixNano: ns(NOW - 5000),
                    timeUnixNano: ns(NOW),
                    asInt: '42',
                    attributes: [
                      { key: 'node', value: { stringValue: 'n1' } },
                      { key: 'port', value: { intValue: '8502' } },
                      { key: 'tls', value: { boolValue: true } },
                    ],
                  },
                ],
              },
            },
            {
              name: 'inflight',
              sum: {
                isMonotonic: false,
                aggregationTemporality: 1,
                dataPoints: [
                  { startTimeUnixNano: ns(NOW - 1000), timeUnixNano: ns(NOW), asDouble: -2 },
                ],
              },
            },
          ]),
        ),
      ),
      NOW,
    );
    expect(rejected).toBe(0);
    expect(records[0]).toMatchObject({
      source: 'otlp',
      name: 'pushes',
      kind: 'counter',
      runRef: 'run-slug',
      env: 'staging',
      last: 42,
      startAtMs: NOW - 5000,
      tMs: NOW,
      tags: {
        'service.name': 'consul',
        'otel.scope.name': 'agent',
        'otel.scope.version': '1.9',
        node: 'n1',
        port: '8502',
        tls: 'true',
      },
    });
    expect(records[0]?.tags['meshbench.run']).toBeUndefined();
    // A delta covers [start_time, time]: it is placed at its start.
    expect(records[1]).toMatchObject({
      kind: 'updowncounter',
      sum: -2,
      tMs: NOW - 1000,
      intervalMs: 1000,
      startAtMs: null,
    });
  });

  it('maps histograms, exponential histograms and summaries', () => {
    const { records } = mapOtlpMetrics(
      decodeOtlpJson(
        JSON.stringify(
          request([
            {
              name: 'latency',
              histogram: {
                aggregationTemporality: 1,
                dataPoints: [
                  {
                    timeUnixNano: ns(NOW),
                    count: '4',
                    sum: 40,
                    min: 2,
                    max: 20,
                    bucketCounts: ['1', '2', '1'],
                    explicitBounds: [5, 10],
                  },
                ],
              },
            },
            {
              name: 'exp',
              exponentialHistogram: {
                aggregationTemporality: 2,
                dataPoints: [
                  {
                    startTimeUnixNano: ns(NOW - 1000),
                    timeUnixNano: ns(NOW),
                    count: 3,
                    sum: -10,
                    scale: 1,
                    zeroCount: 1,
                    negative: { offset: 2, bucketCounts: [2] },
                  },
                ],
              },
            },
            {
              name: 'rtt',
              summary: {
                dataPoints: [
                  {
                    timeUnixNano: ns(NOW),
                    count: 10,
                    sum: 55,
                    quantileValues: [
                      { quantile: 0.5, value: 5 },
                      { quantile: 0.99, value: 10 },
                    ],
                  },
                ],
              },
            },
          ]),
        ),
      ),
      NOW,
    );
    const [hist, exp, summary] = records;
    expect(hist).toMatchObject({
      kind: 'histogram',
      count: 4,
      sum: 40,
      min: 2,
      max: 20,
      startAtMs: null,
    });
    expect(decodeDistribution(hist?.sketch as Uint8Array)).toEqual({
      form: 'explicit',
      bounds: [5, 10],
      counts: [1, 2, 1],
    });
    expect(exp).toMatchObject({ kind: 'exponential_histogram', count: 3, startAtMs: NOW - 1000 });
    expect(decodeDistribution(exp?.sketch as Uint8Array)).toEqual({
      form: 'exponential',
      scale: 1,
      zeroCount: 1,
      zeroThreshold: 0,
      positive: { offset: 0, bucketCounts: [] },
      negative: { offset: 2, bucketCounts: [2] },
    });
    expect(summary).toMatchObject({
      kind: 'summary',
      count: 10,
      sum: 55,
      quantiles: [
        { q: 0.5, value: 5 },
        { q: 0.99, value: 10 },
      ],
    });
  });

  it('skips points flagged as having no value, and rejects bad ones', () => {
    const mapped = mapOtlpMetrics(
      decodeOtlpJson(
        JSON.stringify(
          request([
            {
              name: 'g',
              gauge: { dataPoints: [{ flags: 1 }, { asDouble: 'x' }, { asDouble: 3 }] },
            },
            { name: '', gauge: { dataPoints: [{ asDouble: 1 }] } },
            { name: 's', sum: { isMonotonic: true, dataPoints: [{ asInt: 1 }] } },
          ]),
        ),
      ),
      NOW,
    );
    expect(mapped.records.map((r) => [r.name, r.last, r.tMs])).toEqual([['g', 3, NOW]]);
    expect(mapped.rejected).toBe(3);
    expect(mapped.dataPoints).toBe(5);
  });

  it('refuses a histogram layout the data model forbids, naming the point and field', () => {
    const map = (metric: object) => () =>
      mapOtlpMetrics(decodeOtlpJson(JSON.stringify(request([metric]))), NOW);
    const explicit = (point: object) =>
      map({
        name: 'h',
        histogram: { aggregationTemporality: 1, dataPoints: [{ count: 1 }, point] },
      });
    const exponential = (point: object) =>
      map({ name: 'e', exponentialHistogram: { aggregationTemporality: 1, dataPoints: [point] } });
    expect(explicit({ count: 1, bucketCounts: [1, 0], explicitBounds: [1, 2, 3] })).toThrow(
      'histogram "h" dataPoints[1]: bucketCounts has 2 entries for 3 explicitBounds (must be 4)',
    );
    expect(explicit({ count: 1, bucketCounts: [1, 0, 0], explicitBounds: [2, 2] })).toThrow(
      'histogram "h" dataPoints[1]: explicitBounds must be strictly increasing (explicitBounds[1] = 2 after 2)',
    );
    expect(explicit({ count: 1, bucketCounts: [1, 0], explicitBounds: ['Infinity'] })).toThrow(
      'histogram "h" dataPoints[1]: explicitBounds[0] is not a finite number',
    );
    expect(exponential({ count: 1, scale: 21, zeroCount: 1 })).toThrow(
      'exponentialHistogram "e" dataPoints[0]: scale 21 is outside [-10, 20]',
    );
    expect(exponential({ count: 1, scale: -11, zeroCount: 1 })).toThrow(OtlpDecodeError);
    expect(exponential({ count: 1, scale: 20, zeroCount: 1 })).not.toThrow();
  });

  it('refuses bodies it cannot decode', () => {
    expect(() => decodeOtlpJson('[1,2]')).toThrow(OtlpDecodeError);
    expect(() => decodeOtlpJson('{"resourceMetrics": 5}')).toThrow(OtlpDecodeError);
    expect(() => mapOtlpProtobuf(new Uint8Array([0x0a, 0xff, 0xff, 0x01]), NOW)).toThrow(
      OtlpDecodeError,
    );
  });

  it('writes partial_success when something was rejected or there is a warning', () => {
    expect(encodeOtlpResponse(0, '')).toHaveLength(0);
    expect(encodeOtlpResponse(2, 'why').length).toBeGreaterThan(4);
    expect(encodeOtlpResponse(0, 'held').length).toBeGreaterThan(4);
  });

  it('keeps an int64 gauge exactly where a float cannot, and only there', () => {
    const { records } = mapOtlpMetrics(
      decodeOtlpJson(
        JSON.stringify(
          request([
            {
              name: 'version',
              gauge: {
                dataPoints: [
                  { timeUnixNano: ns(NOW), asInt: '9223372036854775807' },
                  { timeUnixNano: ns(NOW), asInt: '9007199254740992' }, // 2^53: exact as a float
                  { timeUnixNano: ns(NOW), asDouble: 1e300 },
                ],
              },
            },
          ]),
        ),
      ),
      NOW,
    );
    expect(records.map((r) => r.lastExact)).toEqual(['9223372036854775807', null, null]);
  });

  it('gives each tag set one tags object across requests, and no two sets the same', () => {
    const gauge = (attributes: object[][]) =>
      request([
        {
          name: 'cpu',
          gauge: {
            dataPoints: attributes.map((a) => ({
              timeUnixNano: ns(NOW),
              asDouble: 1,
              attributes: a,
            })),
          },
        },
      ]);
    const attr = (key: string, stringValue: string) => ({ key, value: { stringValue } });
    const tagSets = new OtlpTagSets();
    const first = mapOtlpMetrics(
      decodeOtlpJson(
        JSON.stringify(
          gauge([
            [attr('node', 'n1')],
            [attr('node', 'n1')],
            // Keys and values that run together the same way must stay apart.
            [attr('a', 'b1:c'), attr('d', '')],
            [attr('a', 'b'), attr('1:cd', '')],
          ]),
        ),
      ),
      NOW,
      tagSets,
    ).records;
    const again = mapOtlpMetrics(
      decodeOtlpJson(JSON.stringify(gauge([[attr('node', 'n1'), attr('meshbench.run', 'r2')]]))),
      NOW,
      tagSets,
    ).records;
    expect(first[0]?.tags).toBe(first[1]?.tags);
    expect(again[0]?.tags).toBe(first[0]?.tags);
    expect(again[0]?.runRef).toBe('r2');
    expect(first[0]?.tags).toMatchObject({ node: 'n1', 'service.name': 'consul' });
    expect(first[2]?.tags).toMatchObject({ a: 'b1:c', d: '' });
    expect(first[3]?.tags).toMatchObject({ a: 'b', '1:cd': '' });
    expect(first[2]?.tags).not.toBe(first[3]?.tags);
    expect(first[0]?.env).toBe('staging');
  });
});

const generated = (
  root as unknown as {
    opentelemetry: {
      proto: {
        collector: {
          metrics: {
            v1: {
              ExportMetricsServiceRequest: Encoder & {
                decode(bytes: Uint8Array): ExportMetricsRequest;
              };
            };
          };
        };
        resource: { v1: { Resource: Encoder } };
        metrics: { v1: { ScopeMetrics: Encoder } };
      };
    };
  }
).opentelemetry.proto;
const encode = (type: Encoder, o: object) => type.encode(type.fromObject(o)).finish();
const encodeRequest = (o: object) =>
  encode(generated.collector.metrics.v1.ExportMetricsServiceRequest, o);
/** The reference: the whole message decoded by the generated code on protobufjs' own reader, then mapped. */
const reference = (bytes: Uint8Array) =>
  mapOtlpMetrics(generated.collector.metrics.v1.ExportMetricsServiceRequest.decode(bytes), NOW);

describe('OTLP protobuf, decoded one Metric at a time', () => {
  it("takes the containers' field numbers from the generated code, as metrics.proto has them", () => {
    // opentelemetry-proto, metrics/v1/metrics.proto and collector/metrics/v1/metrics_service.proto.
    expect(CONTAINER_FIELDS).toEqual({
      resourceMetrics: 1,
      resource: 1,
      scopeMetrics: 2,
      scope: 1,
      metrics: 2,
    });
  });

  const attr = (key: string, stringValue: string) => ({ key, value: { stringValue } });
  const requests = {
    'every data type, bad points included': request([
      {
        name: 'g',
        unit: 'ms',
        gauge: {
          dataPoints: [
            { flags: 1 },
            { asDouble: 3, timeUnixNano: ns(NOW), attributes: [attr('node', 'n1')] },
            { asInt: 7 },
          ],
        },
      },
      { name: '', gauge: { dataPoints: [{ asDouble: 1 }] } },
      {
        name: 'c',
        sum: {
          isMonotonic: true,
          aggregationTemporality: 2,
          dataPoints: [
            {
              asInt: 5,
              startTimeUnixNano: ns(NOW - 5000),
              timeUnixNano: ns(NOW),
              attributes: [attr('meshbench.run', 'other'), attr('az', 'a')],
            },
          ],
        },
      },
      {
        name: 'd',
        sum: {
          isMonotonic: false,
          aggregationTemporality: 1,
          dataPoints: [{ asDouble: -2.5, timeUnixNano: ns(NOW) }],
        },
      },
      {
        name: 'h',
        histogram: {
          aggregationTemporality: 1,
          dataPoints: [
            {
              timeUnixNano: ns(NOW),
              count: 4,
              sum: 40,
              min: 2,
              max: 20,
              bucketCounts: [1, 2, 1],
              explicitBounds: [5, 10],
            },
          ],
        },
      },
      {
        name: 'e',
        exponentialHistogram: {
          aggregationTemporality: 2,
          dataPoints: [
            {
              timeUnixNano: ns(NOW),
              count: 3,
              sum: 6,
              scale: 2,
              zeroCount: 1,
              positive: { offset: 1, bucketCounts: [1, 1] },
            },
          ],
        },
      },
      {
        name: 's',
        summary: {
          dataPoints: [
            {
              timeUnixNano: ns(NOW),
              count: 2,
              sum: 3,
              quantileValues: [
                { quantile: 0.5, value: 1 },
                { quantile: 1, value: 2 },
              ],
            },
          ],
        },
      },
      { name: 'none' },
    ]),
    'several resources and scopes': {
      resourceMetrics: [
        {
          resource: {
            attributes: [attr('service.name', 'a'), attr('deployment.environment', 'x')],
          },
          scopeMetrics: [
            {
              scope: { name: 's1', attributes: [attr('k', 'v')] },
              metrics: [
                { name: 'm', gauge: { dataPoints: [{ asDouble: 1, timeUnixNano: ns(NOW) }] } },
              ],
            },
            {
              metrics: [
                { name: 'm', gauge: { dataPoints: [{ asDouble: 2, timeUnixNano: ns(NOW) }] } },
              ],
            },
          ],
        },
        {
          scopeMetrics: [
            {
              scope: { name: 's2', version: '2' },
              metrics: [{ name: 'n', gauge: { dataPoints: [{ asDouble: 3 }] } }],
            },
          ],
        },
        {},
      ],
    },
    'no resource metrics at all': {},
  };

  for (const [name, body] of Object.entries(requests)) {
    it(`maps as the whole-message decode does: ${name}`, () => {
      const bytes = encodeRequest(body);
      const mapped = mapOtlpProtobuf(bytes, NOW);
      expect(mapped).toEqual(reference(bytes));
    });
  }

  it('reads a resource and a scope sent after their metrics, and skips unknown fields', () => {
    const resource = encode(generated.resource.v1.Resource, {
      attributes: [attr('service.name', 'late'), attr('meshbench.run', 'run-late')],
    });
    const scopeMetrics = encode(generated.metrics.v1.ScopeMetrics, {
      scope: { name: 'agent' },
      metrics: [{ name: 'm', gauge: { dataPoints: [{ asDouble: 4, timeUnixNano: ns(NOW) }] } }],
    });
    // ResourceMetrics: scope_metrics (2), an unknown varint (9), schema_url (3), resource (1).
    const rm = protobuf.Writer.create()
      .uint32((2 << 3) | 2)
      .bytes(scopeMetrics)
      .uint32(9 << 3)
      .uint64(12345)
      .uint32((3 << 3) | 2)
      .string('https://example.com/schema')
      .uint32((1 << 3) | 2)
      .bytes(resource)
      .finish();
    // The request: an unknown length-delimited field (5) before the ResourceMetrics.
    const bytes = protobuf.Writer.create()
      .uint32((5 << 3) | 2)
      .bytes(new Uint8Array([1, 2, 3]))
      .uint32((1 << 3) | 2)
      .bytes(rm)
      .finish();
    const mapped = mapOtlpProtobuf(bytes, NOW);
    expect(mapped.records).toHaveLength(1);
    expect(mapped.records[0]).toMatchObject({
      name: 'm',
      last: 4,
      runRef: 'run-late',
      tags: { 'service.name': 'late', 'otel.scope.name': 'agent' },
    });
    expect(mapped).toEqual(reference(bytes));
  });

  it('refuses truncated bodies and lengths that run past their message', () => {
    const bytes = encodeRequest(requests['several resources and scopes']);
    for (const cut of [1, 5, 17, bytes.length - 1]) {
      expect(() => mapOtlpProtobuf(bytes.subarray(0, cut), NOW)).toThrow(OtlpDecodeError);
    }
    // A ResourceMetrics that says it is longer than the request.
    expect(() =>
      mapOtlpProtobuf(new Uint8Array([0x0a, 0xff, 0xff, 0x01, 0x12, 0x00]), NOW),
    ).toThrow(/could not be decoded/);
  });
});
