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
import { envOf, OtlpTagSets, resourceTagsOf, scopeOf, tooLong } from './otlp-tags.ts';
import {
  addAttributes,
  anyValueText,
  exactInt,
  inRange,
  isInt64,
  nanosToMs,
  num,
  optNum,
  temporality,
} from './otlp-values.ts';

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

  it('keeps the start time of a summary, and no quantiles when it sends none', () => {
    const { records } = mapOtlpMetrics(
      decodeOtlpJson(
        JSON.stringify(
          request([
            {
              name: 'rtt',
              summary: {
                dataPoints: [
                  { startTimeUnixNano: ns(NOW - 60_000), timeUnixNano: ns(NOW), count: 4, sum: 8 },
                ],
              },
            },
          ]),
        ),
      ),
      NOW,
    );
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      kind: 'summary',
      count: 4,
      sum: 8,
      startAtMs: NOW - 60_000,
      quantiles: [],
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

// Field by field, from the data model (metrics.proto v1.5 and the specification's
// data-model.md) and the limits written at the top of otlp-values.ts; each expected value
// worked by hand. Written for the mutation run of issue 28.
describe('OTLP points, field by field', () => {
  const mapped = (metrics: object[]) =>
    mapOtlpMetrics(decodeOtlpJson(JSON.stringify(request(metrics))), NOW);
  const reasons = (m: ReturnType<typeof mapped>) => [...m.reasons.keys()];

  it('reads gauges: a double before an int, 0 as a value, and says why a point has none', () => {
    const m = mapped([
      {
        name: 'g',
        gauge: {
          dataPoints: [
            { timeUnixNano: ns(NOW), asDouble: 0 },
            { timeUnixNano: ns(NOW), asDouble: 2.5, asInt: '7' },
            { timeUnixNano: ns(NOW), asInt: '-3' },
            { timeUnixNano: ns(NOW) },
            { timeUnixNano: ns(NOW), asInt: '1.5' },
            { timeUnixNano: ns(NOW), asDouble: 'Infinity' },
          ],
        },
      },
    ]);
    expect(m.records.map((r) => [r.kind, r.last, r.min, r.max, r.lastAtMs, r.lastExact])).toEqual([
      ['gauge', 0, 0, 0, NOW, null],
      ['gauge', 2.5, 2.5, 2.5, NOW, null],
      ['gauge', -3, -3, -3, NOW, null],
    ]);
    expect(reasons(m)).toEqual([
      'a data point of "g" has no value',
      'a data point of "g" has an asInt that is not an int64',
      'a data point of "g" is not a finite number',
    ]);
  });

  it('reads sums without a start, and refuses one without temporality', () => {
    const sum = (aggregationTemporality: unknown, isMonotonic: boolean) => ({
      name: 's',
      sum: {
        aggregationTemporality,
        isMonotonic,
        dataPoints: [{ timeUnixNano: ns(NOW), asInt: '4' }],
      },
    });
    const m = mapped([
      sum('AGGREGATION_TEMPORALITY_CUMULATIVE', true),
      sum('AGGREGATION_TEMPORALITY_DELTA', false),
      sum('AGGREGATION_TEMPORALITY_UNSPECIFIED', true),
    ]);
    expect(
      m.records.map((r) => [r.kind, r.last, r.sum, r.startAtMs, r.lastAtMs, r.tMs, r.intervalMs]),
    ).toEqual([
      // A cumulative sum with no start: its start is unknown (0).
      ['counter', 4, null, 0, NOW, NOW, 0],
      // A delta with no start: at its time, with no length.
      ['updowncounter', null, 4, null, null, NOW, 0],
    ]);
    expect(reasons(m)).toEqual(['sum "s" has no aggregation temporality']);
  });

  it('places histograms by temporality, with or without a start, and null where unsent', () => {
    const hist = (aggregationTemporality: unknown, start: boolean) => ({
      name: 'h',
      histogram: {
        aggregationTemporality,
        dataPoints: [
          {
            ...(start ? { startTimeUnixNano: ns(NOW - 1000) } : {}),
            timeUnixNano: ns(NOW),
            count: '2',
            bucketCounts: [],
            explicitBounds: [],
          },
        ],
      },
    });
    const m = mapped([
      hist(2, true),
      hist(2, false),
      hist('AGGREGATION_TEMPORALITY_DELTA', true),
      hist(1, false),
      hist(0, true),
    ]);
    expect(
      m.records.map((r) => [
        r.kind,
        r.count,
        r.sum,
        r.min,
        r.max,
        r.sketch,
        r.startAtMs,
        r.tMs,
        r.intervalMs,
      ]),
    ).toEqual([
      ['histogram', 2, null, null, null, null, NOW - 1000, NOW, 0],
      ['histogram', 2, null, null, null, null, 0, NOW, 0],
      ['histogram', 2, null, null, null, null, null, NOW - 1000, 1000],
      ['histogram', 2, null, null, null, null, null, NOW, 0],
    ]);
    expect(reasons(m)).toEqual(['histogram "h" has no aggregation temporality']);
    const e = mapped([
      { name: 'e', exponentialHistogram: { dataPoints: [{ count: 1, zeroCount: 1 }] } },
    ]);
    expect(reasons(e)).toEqual(['histogram "e" has no aggregation temporality']);
  });

  const refusal = (metric: object) => {
    try {
      mapped([metric]);
    } catch (error) {
      expect(error).toBeInstanceOf(OtlpDecodeError);
      return (error as Error).message;
    }
    return null;
  };
  const explicit = (point: object) =>
    refusal({ name: 'h', histogram: { aggregationTemporality: 1, dataPoints: [point] } });
  const exponential = (point: object) =>
    refusal({
      name: 'e',
      exponentialHistogram: { aggregationTemporality: 2, dataPoints: [point] },
    });

  it('checks explicit bounds and counts', () => {
    const at = 'histogram "h" dataPoints[0]: ';
    expect(explicit({ bucketCounts: [1, 0, 0], explicitBounds: [2, 1] })).toBe(
      `${at}explicitBounds must be strictly increasing (explicitBounds[1] = 1 after 2)`,
    );
    expect(explicit({ bucketCounts: [1, 0], explicitBounds: ['-Infinity'] })).toBe(
      `${at}explicitBounds[0] is not a finite number`,
    );
    expect(explicit({ bucketCounts: [1, 0, 0], explicitBounds: [1, 'NaN'] })).toBe(
      `${at}explicitBounds[1] is not a finite number`,
    );
    expect(explicit({ bucketCounts: [1, -1], explicitBounds: [1] })).toBe(
      `${at}bucketCounts[1] is not a count`,
    );
    expect(explicit({ bucketCounts: [1], explicitBounds: [] })).toBeNull();
    expect(explicit({ bucketCounts: [], explicitBounds: [1] })).toBe(
      `${at}bucketCounts has 0 entries for 1 explicitBounds (must be 2)`,
    );
    // One bucket and no bound: every value in (-inf, +inf).
    const one = mapped([
      { name: 'h', histogram: { aggregationTemporality: 1, dataPoints: [{ bucketCounts: [3] }] } },
    ]);
    expect(decodeDistribution(one.records[0]?.sketch as Uint8Array)).toEqual({
      form: 'explicit',
      bounds: [],
      counts: [3],
    });
  });

  it('checks the exponential scale, zero bucket and offsets against float64', () => {
    const at = 'exponentialHistogram "e" dataPoints[0]: ';
    expect(exponential({ scale: 1.5 })).toBe(`${at}scale 1.5 is outside [-10, 20]`);
    expect(exponential({ scale: -10 })).toBeNull();
    expect(exponential({ scale: 20 })).toBeNull();
    expect(exponential({ zeroCount: -1 })).toBe(`${at}zeroCount is not a count`);
    expect(exponential({ zeroThreshold: -0.5 })).toBe(
      `${at}zeroThreshold is not a finite number >= 0`,
    );
    expect(exponential({ zeroThreshold: 'Infinity' })).toBe(
      `${at}zeroThreshold is not a finite number >= 0`,
    );
    expect(exponential({ positive: { offset: 1.5, bucketCounts: [1] } })).toBe(
      `${at}positive.offset is not an integer`,
    );
    expect(exponential({ negative: { offset: 0, bucketCounts: [1, -1] } })).toBe(
      `${at}negative.bucketCounts[1] is not a count`,
    );
    // At scale 0 bucket i holds (2^i, 2^(i+1)]: the smallest normal double 2^-1022 is in
    // bucket -1023, the largest (below 2^1024) in bucket 1023.
    const range = (offset: number, n: number, field = 'positive') =>
      exponential({ scale: 0, [field]: { offset, bucketCounts: Array(n).fill(1) } });
    expect(range(-1023, 1)).toBeNull();
    expect(range(1022, 2, 'negative')).toBeNull();
    expect(range(-1024, 1)).toBe(
      `${at}positive.offset -1024 with 1 buckets reaches past the buckets a double maps to at scale 0 (-1023 to 1023)`,
    );
    expect(range(1023, 2, 'negative')).toBe(
      `${at}negative.offset 1023 with 2 buckets reaches past the buckets a double maps to at scale 0 (-1023 to 1023)`,
    );
    // No buckets: the offset says nothing.
    expect(range(5000, 0)).toBeNull();
    // At scale 1 bucket i holds (2^(i/2), 2^((i+1)/2)]: 2^-1022 is in bucket -2045.
    expect(exponential({ scale: 1, positive: { offset: -2045, bucketCounts: [1] } })).toBeNull();
    expect(exponential({ scale: 1, positive: { offset: -2046, bucketCounts: [1] } })).not.toBe(
      null,
    );
    const kept = mapped([
      {
        name: 'e',
        exponentialHistogram: {
          aggregationTemporality: 2,
          dataPoints: [
            {
              count: '6',
              scale: -2,
              zeroCount: '1',
              zeroThreshold: 0.001,
              positive: { offset: -3, bucketCounts: ['2', 0, 1] },
              negative: { bucketCounts: [2] },
              min: -9,
              max: 30,
              sum: 12.5,
            },
          ],
        },
      },
    ]);
    expect(kept.records[0]).toMatchObject({ count: 6, min: -9, max: 30, sum: 12.5 });
    expect(decodeDistribution(kept.records[0]?.sketch as Uint8Array)).toEqual({
      form: 'exponential',
      scale: -2,
      zeroCount: 1,
      zeroThreshold: 0.001,
      positive: { offset: -3, bucketCounts: [2, 0, 1] },
      negative: { offset: 0, bucketCounts: [2] },
    });
  });
});

describe('OTLP scalar values', () => {
  it('keeps an int64 as text only past 2^53, either sign', () => {
    expect(exactInt(null)).toBeNull();
    expect(exactInt(undefined)).toBeNull();
    expect(exactInt('9007199254740992')).toBeNull();
    expect(exactInt('-9007199254740992')).toBeNull();
    expect(exactInt('9007199254740993')).toBe('9007199254740993');
    expect(exactInt('-9007199254740993')).toBe('-9007199254740993');
    expect(exactInt(' 9223372036854775807 ')).toBe('9223372036854775807');
    // A JSON number past 2^53: text that reads back as the same double.
    expect(Number(exactInt(2 ** 60))).toBe(2 ** 60);
    expect(exactInt(1.5)).toBeNull();
    expect(exactInt('1e20')).toBeNull();
    expect(exactInt('12a')).toBeNull();
    const long = { toNumber: () => 2 ** 63, toString: () => '9223372036854775807' };
    expect(exactInt(long)).toBe('9223372036854775807');
  });

  it('reads int64 fields as numbers, and tells an int64 from anything else', () => {
    expect(num(5)).toBe(5);
    expect(num(null)).toBe(0);
    expect(num(undefined)).toBe(0);
    expect(num('12')).toBe(12);
    expect(num({ toNumber: () => 7 })).toBe(7);
    expect(num({} as never)).toBeNaN();
    expect(optNum(null)).toBeNull();
    expect(optNum(undefined)).toBeNull();
    expect(optNum('2.5')).toBe(2.5);
    expect(optNum(0)).toBe(0);
    expect(nanosToMs('1500000')).toBe(1.5);
    for (const yes of [3, -1, '9223372036854775807', '-9223372036854775808', '0']) {
      expect([yes, isInt64(yes)]).toEqual([yes, true]);
    }
    for (const no of [
      1.5,
      '9223372036854775808',
      '-9223372036854775809',
      '123456789012345678901',
      '',
      ' 1',
      '1 ',
      '+1',
      null,
      undefined,
    ]) {
      expect([no, isInt64(no)]).toEqual([no, false]);
    }
    expect(isInt64({ toNumber: () => 1 })).toBe(true);
    expect(isInt64({} as never)).toBe(false);
  });

  it('writes attribute values as text, nested ones as JSON', () => {
    expect(anyValueText(null)).toBe('');
    expect(anyValueText({})).toBe('');
    expect(anyValueText({ stringValue: '', boolValue: true })).toBe('');
    expect(anyValueText({ stringValue: null, boolValue: false })).toBe('false');
    expect(anyValueText({ intValue: '12' })).toBe('12');
    expect(anyValueText({ intValue: null, doubleValue: 1.5 })).toBe('1.5');
    expect(anyValueText({ doubleValue: '2' })).toBe('2');
    expect(anyValueText({ arrayValue: { values: [{ stringValue: 'a' }, { intValue: 1 }] } })).toBe(
      '["a","1"]',
    );
    expect(anyValueText({ arrayValue: {} })).toBe('[]');
    expect(
      anyValueText({ kvlistValue: { values: [{ key: 'k', value: { boolValue: true } }] } }),
    ).toBe('{"k":"true"}');
    expect(anyValueText({ kvlistValue: {} })).toBe('{}');
    expect(anyValueText({ bytesValue: 'AAE=' })).toBe('');
    const into: Record<string, string> = { a: '1' };
    addAttributes(into, null);
    addAttributes(into, [
      null as never,
      { key: 5 } as never,
      { key: 'b', value: { stringValue: 'x' } },
    ]);
    expect(into).toEqual({ a: '1', b: 'x' });
  });

  it('reads temporality by number or enum name, and times from 1970 to the end of 9999', () => {
    expect(temporality(1)).toBe(1);
    expect(temporality(2)).toBe(2);
    expect(temporality('AGGREGATION_TEMPORALITY_CUMULATIVE')).toBe(2);
    expect(temporality('AGGREGATION_TEMPORALITY_DELTA')).toBe(1);
    expect(temporality('AGGREGATION_TEMPORALITY_UNSPECIFIED')).toBe(0);
    expect(temporality(null)).toBe(0);
    const end = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    expect([0, end].map(inRange)).toEqual([true, true]);
    expect([-1, end + 1, Number.NaN, Number.POSITIVE_INFINITY].map(inRange)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('OTLP tags', () => {
  it('holds attribute keys to 1024 bytes and values to 4096, inclusive', () => {
    const x = (n: number) => 'x'.repeat(n);
    expect(tooLong({ [x(1024)]: x(4096) })).toBeNull();
    expect(tooLong({ ok: '', [x(1025)]: '' })).toBe(
      `an attribute key longer than 1024 bytes ("${x(40)}...")`,
    );
    expect(tooLong({ [x(120)]: x(4097) })).toBe(
      `attribute "${x(100)}" has a value longer than 4096 bytes`,
    );
    // In bytes: 2048 "é" are 4096 bytes, 2049 are over.
    expect(tooLong({ k: '\u00e9'.repeat(2048) })).toBeNull();
    expect(tooLong({ k: '\u00e9'.repeat(2049) })).not.toBeNull();
  });

  it('reads the environment from deployment.environment.name first', () => {
    expect(envOf({ 'deployment.environment.name': 'a', 'deployment.environment': 'b' })).toBe('a');
    expect(envOf({ 'deployment.environment.name': '', 'deployment.environment': 'b' })).toBe('b');
    expect(envOf({})).toBeNull();
  });

  it('takes the scope name and version when sent, and the run out of the tags', () => {
    const scope = scopeOf(
      { 'meshbench.run': 'r1', 'deployment.environment': 'ci' },
      {
        scope: { name: '', version: '2', attributes: [{ key: 'k', value: { stringValue: 'v' } }] },
      },
    );
    expect(scope).toEqual({
      key: JSON.stringify({ 'deployment.environment': 'ci', 'otel.scope.version': '2', k: 'v' }),
      tags: { 'deployment.environment': 'ci', 'otel.scope.version': '2', k: 'v' },
      runRef: 'r1',
      env: 'ci',
      tooLong: null,
    });
    expect(scopeOf({ 'meshbench.run': '' }, null)).toMatchObject({ runRef: null, tags: {} });
    expect(scopeOf(resourceTagsOf(null), { scope: { name: 'n' } }).tags).toEqual({
      'otel.scope.name': 'n',
    });
    expect(scopeOf({ k: 'x'.repeat(4097) }, null).tooLong).toBe(
      'attribute "k" has a value longer than 4096 bytes',
    );
  });

  it('gives the same node for the same scope and attribute, and starts over at its limit', () => {
    const sets = new OtlpTagSets(3);
    const a = sets.scope('a');
    expect(sets.scope('a')).toBe(a);
    const child = sets.child(a, 'k', 'v');
    expect(sets.child(a, 'k', 'v')).toBe(child);
    expect(sets.child(a, 'k', 'w')).not.toBe(child);
    expect(sets.child(a, 'j', 'v')).not.toBe(child);
    // Four nodes made (a, k=v, k=w, j=v): past the limit of 3, the tree starts over.
    const again = sets.scope('a');
    expect(again).not.toBe(a);
    expect(sets.scope('a')).toBe(again);
    const small = new OtlpTagSets(2);
    const s = small.scope('s');
    small.child(s, 'k', 'v'); // 2 nodes: at the limit
    expect(small.scope('s')).not.toBe(s);
    const t = new OtlpTagSets(3);
    const u = t.scope('u');
    t.child(u, 'k', 'v'); // 2 nodes: under the limit
    expect(t.scope('u')).toBe(u);
  });
});
