// The hand-written logs decoder against protobufjs with the vendored upstream protos: the
// same records from a protobufjs-encoded body and from its OTLP/JSON form; microseconds
// exact against BigInt; any cut or changed body is a decode error, never a crash.
import { fileURLToPath } from 'node:url';
import { eventTypes } from '@meshbench/schema';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors.ts';
import { formatTimestampUs } from '../timestamps.ts';
import { checkLogEvent, formatMicros, logEventOf } from './log-events.ts';
import {
  type Attributes,
  decodeLogsJson,
  decodeLogsProtobuf,
  encodeLogsResponse,
  nanosToMicros,
  type WireLogRecord,
} from './otlp-logs.ts';
import { OtlpDecodeError } from './otlp-message.ts';

const root = protobuf.loadSync(fileURLToPath(new URL('./logs.proto', import.meta.url)));
const Request = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
const Response = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse');

const s = (v: string) => ({ stringValue: v });
const kv = (key: string, value: object) => ({ key, value });

const message = {
  resourceLogs: [
    {
      resource: { attributes: [kv('service.name', s('probe')), kv('meshbench.run', s('r1'))] },
      scopeLogs: [
        {
          scope: { name: 'p', version: '1', attributes: [kv('meshbench.run', s('r2'))] },
          logRecords: [
            {
              timeUnixNano: '1769940000123456789',
              observedTimeUnixNano: '1769940000999999999',
              eventName: 'meshbench.observation',
              severityNumber: 9,
              body: s('ignored'),
              traceId: Buffer.alloc(16, 1).toString('base64'),
              attributes: [
                kv('change', s('c1')),
                kv('proxy', s('p-1')),
                kv('attrs.az', s('a')),
                kv('attrs.n', { intValue: '-42' }),
                kv('attrs.big', { intValue: '9007199254740993' }),
                kv('attrs.d', { doubleValue: 0.125 }),
                kv('attrs.b', { boolValue: true }),
                kv('attrs.list', { arrayValue: { values: [s('x'), { intValue: '2' }] } }),
                kv('attrs.map', { kvlistValue: { values: [kv('k', s('v'))] } }),
                kv('attrs.bytes', { bytesValue: Buffer.from([1, 2, 255]).toString('base64') }),
                kv('log.file.name', s('envoy.log')),
              ],
            },
            { observedTimeUnixNano: '1000', attributes: [kv('event.name', s('x'))] },
          ],
        },
        { logRecords: [{}] },
      ],
    },
    { scopeLogs: [{ logRecords: [{ eventName: 'meshbench.change' }] }] },
  ],
};

describe('OTLP logs decoder', () => {
  it('reads a protobufjs-encoded body as its OTLP/JSON form', () => {
    const body = Buffer.from(Request.encode(Request.fromObject(message)).finish());
    const fromProto = decodeLogsProtobuf(body);
    const fromJson = decodeLogsJson(JSON.stringify(message));
    expect(fromProto).toEqual(fromJson);
    expect(fromProto).toHaveLength(4);
    const first = fromProto[0];
    expect(first).toMatchObject({
      resource: 0,
      scope: 0,
      index: 0,
      eventName: 'meshbench.observation',
      timeUs: 1769940000123456,
      observedUs: 1769940000999999,
      scopeAttributes: [['meshbench.run', 'r2']],
    });
    expect(Object.fromEntries(first?.attributes ?? [])).toEqual({
      change: 'c1',
      proxy: 'p-1',
      'attrs.az': 'a',
      'attrs.n': -42,
      'attrs.big': '9007199254740993',
      'attrs.d': 0.125,
      'attrs.b': true,
      'attrs.list': ['x', 2],
      'attrs.map': { k: 'v' },
      'attrs.bytes': 'AQL/',
      'log.file.name': 'envoy.log',
    });
    expect(fromProto.map((r) => [r.resource, r.scope, r.index])).toEqual([
      [0, 0, 0],
      [0, 0, 1],
      [0, 1, 0],
      [1, 0, 0],
    ]);
  });

  it('maps a record to the probe event, the scope run over the resource run', () => {
    const body = Buffer.from(Request.encode(Request.fromObject(message)).finish());
    const [first, second] = decodeLogsProtobuf(body);
    if (!first) throw new Error('no record');
    // attrs are flat, as the events API takes them: a list or map in them is refused there too.
    const check = (record: typeof first) => {
      const mapped = logEventOf(record);
      if (mapped.kind === 'event') checkLogEvent(mapped);
      return mapped;
    };
    expect(() => check(first)).toThrow(
      'log record resourceLogs[0].scopeLogs[0].logRecords[0] (meshbench.observation): "attrs.list" Invalid input',
    );
    first.attributes = first.attributes.filter(([key]) => key !== 'attrs.list');
    expect(() => check(first)).toThrow('"attrs.map" Invalid input');
    first.attributes = first.attributes.filter(([key]) => key !== 'attrs.map');
    const mapped = check(first);
    expect(mapped).toMatchObject({
      kind: 'event',
      runRef: 'r2',
      event: {
        type: 'observation',
        change: 'c1',
        proxy: 'p-1',
        at: '2026-02-01T10:00:00.123456Z',
        attrs: { az: 'a', n: -42, d: 0.125, b: true, big: '9007199254740993', bytes: 'AQL/' },
      },
    });
    expect(logEventOf(second as NonNullable<typeof second>)).toMatchObject({
      kind: 'other',
      reason: 'not a meshbench event (event name "x")',
    });
  });

  it('divides nanoseconds into microseconds exactly', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let i = 0; i < 20_000; i++) {
      const hi =
        i < 10 ? ([0, 1, 0xffffffff, 0x186a0000, 0x1890_0000][i % 5] ?? 0) : next() % 0x20000000;
      const lo =
        i < 10
          ? ([0, 999, 1000, 0xffffffff, 4294967000][i % 5] ?? 0)
          : (next() * 2 + (next() & 1)) >>> 0;
      const exact = ((BigInt(hi) << 32n) | BigInt(lo)) / 1000n;
      expect(nanosToMicros(lo, hi)).toBe(Number(exact));
    }
  });

  it('formats microseconds as formatTimestampUs does', () => {
    for (const us of [
      0, 1, 999_999, 1_000_000, 1769940000123456, 1769940000999999, 1769940001000000,
      9_007_199_254_740_991, 1769940000123456, 5,
    ])
      expect(formatMicros(us)).toBe(formatTimestampUs(us));
  });

  it('refuses cut and changed bodies as decode errors', () => {
    const body = Buffer.from(Request.encode(Request.fromObject(message)).finish());
    let seed = 11;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let i = 0; i < 3000; i++) {
      const mutated = Buffer.from(
        body.subarray(0, i % 3 === 0 ? next() % body.length : body.length),
      );
      for (let k = 0; k < 1 + (i % 4); k++)
        if (mutated.length > 0) mutated[next() % mutated.length] = next() & 255;
      try {
        decodeLogsProtobuf(mutated);
      } catch (error) {
        expect(error).toBeInstanceOf(OtlpDecodeError);
      }
    }
  });

  it('encodes the response as the upstream message', () => {
    expect(Response.toObject(Response.decode(encodeLogsResponse(0, '')))).toEqual({});
    expect(
      Response.toObject(Response.decode(encodeLogsResponse(3, 'why')), { longs: Number }),
    ).toEqual({ partialSuccess: { rejectedLogRecords: 3, errorMessage: 'why' } });
  });

  it('names where an OTLP/JSON body is wrong', () => {
    expect(() => decodeLogsJson('{"resourceLogs":{}}')).toThrow('"resourceLogs" must be an array');
    expect(() =>
      decodeLogsJson('{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"x"}]}]}]}'),
    ).toThrow(
      'resourceLogs[0].scopeLogs[0].logRecords[0].timeUnixNano must be an unsigned 64-bit integer in nanoseconds',
    );
  });
});

// Record by record and field by field (issue 28's mutation run): the event conventions
// written at the top of log-events.ts, and OTLP/JSON as the proto3 JSON mapping spells it.
describe('log records as probe events', () => {
  const record = (over: Partial<WireLogRecord>): WireLogRecord => ({
    resource: 1,
    scope: 2,
    index: 3,
    eventName: '',
    timeUs: 1769940000123456,
    observedUs: 0,
    attributes: [],
    resourceAttributes: [],
    scopeAttributes: [],
    ...over,
  });
  const thrown = (r: WireLogRecord) => {
    try {
      logEventOf(r);
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      const e = error as AppError;
      return [e.statusCode, e.code, e.message, e.where];
    }
    return null;
  };
  const at = 'log record resourceLogs[1].scopeLogs[2].logRecords[3]';

  it('tells events from other records by their name', () => {
    expect(logEventOf(record({}))).toMatchObject({
      kind: 'other',
      reason: 'not an event (no event_name nor event.name attribute)',
    });
    expect(logEventOf(record({ attributes: [['event.name', '']] }))).toMatchObject({
      reason: 'not an event (no event_name nor event.name attribute)',
    });
    expect(logEventOf(record({ eventName: `x${'y'.repeat(150)}` }))).toMatchObject({
      reason: `not a meshbench event (event name "x${'y'.repeat(99)}")`,
    });
    // The older attribute names the event when event_name is unset; event_name wins.
    expect(
      logEventOf(record({ attributes: [['event.name', 'meshbench.lifecycle']] })),
    ).toMatchObject({ kind: 'event', event: { type: 'lifecycle' } });
    expect(
      logEventOf(
        record({ eventName: 'meshbench.change', attributes: [['event.name', 'meshbench.clock']] }),
      ),
    ).toMatchObject({
      kind: 'event',
      event: { type: 'change', at: '2026-02-01T10:00:00.123456Z' },
    });
    expect(thrown(record({ eventName: 'meshbench.nope' }))).toEqual([
      400,
      'invalid_event',
      `${at} (meshbench.nope): unknown meshbench event; expected one of ${eventTypes.map((t) => `meshbench.${t}`).join(', ')}`,
      { field: 'event_name' },
    ]);
  });

  it('takes plain attributes as fields, attrs.* into attrs, and leaves dotted ones out', () => {
    const mapped = logEventOf(
      record({
        eventName: 'meshbench.observation',
        attributes: [
          ['proxy', 'p-1'],
          ['attrs', { given: 1 }],
          ['attrs.az', 'a'],
          ['log.file.name', 'x.log'],
        ],
      }),
    );
    expect(mapped).toEqual({
      kind: 'event',
      record: expect.anything(),
      event: {
        type: 'observation',
        proxy: 'p-1',
        attrs: { given: 1, az: 'a' },
        at: '2026-02-01T10:00:00.123456Z',
      },
      runRef: null,
      env: null,
    });
    const noAttrs = logEventOf(record({ eventName: 'meshbench.observation' }));
    expect(noAttrs.kind === 'event' && 'attrs' in noAttrs.event).toBe(false);
    for (const given of ['text', null, ['a']]) {
      expect(
        thrown(
          record({
            eventName: 'meshbench.observation',
            attributes: [
              ['attrs', given],
              ['attrs.k', 'v'],
            ],
          }),
        ),
      ).toEqual([
        400,
        'invalid_event',
        `${at} (meshbench.observation): "attrs" must be a key-value list (kvlistValue)`,
        { field: 'attrs' },
      ]);
    }
    expect(thrown(record({ eventName: 'meshbench.change', attributes: [['type', 'x']] }))).toEqual([
      400,
      'invalid_event',
      `${at} (meshbench.change): the type is the event name; "type" may not be an attribute`,
      { field: 'type' },
    ]);
  });

  it("puts the record's time in the event's time field, which no attribute may hold", () => {
    expect(
      thrown(record({ eventName: 'meshbench.incident', attributes: [['from', 'x']] })),
    ).toEqual([
      400,
      'invalid_event',
      `${at} (meshbench.incident): "from" is the record's time (time_unix_nano); it may not be an attribute`,
      { field: 'from' },
    ]);
    expect(logEventOf(record({ eventName: 'meshbench.incident' }))).toMatchObject({
      event: { from: '2026-02-01T10:00:00.123456Z' },
    });
    // No time_unix_nano: the observed time.
    expect(
      logEventOf(record({ eventName: 'meshbench.change', timeUs: 0, observedUs: 5_000_001 })),
    ).toMatchObject({ event: { at: '1970-01-01T00:00:05.000001Z' } });
    expect(thrown(record({ eventName: 'meshbench.change', timeUs: 0 }))).toEqual([
      400,
      'invalid_event',
      `${at} (meshbench.change): no time: time_unix_nano and observed_time_unix_nano are both unset`,
      { field: 'at' },
    ]);
    // Past 2^53 us (2255-06-05T23:47:34.740991Z) a time is no longer exact: refused, and the
    // answer names that bound (it named the year 9999 before).
    expect(thrown(record({ eventName: 'meshbench.change', timeUs: 2 ** 53 }))).toEqual([
      400,
      'invalid_event',
      `${at} (meshbench.change): the record time is past 2255-06-05T23:47:34.740991Z, the last microsecond meshbench holds exactly`,
      { field: 'at' },
    ]);
    expect(
      logEventOf(record({ eventName: 'meshbench.change', timeUs: 2 ** 53 - 1 })),
    ).toMatchObject({ event: { at: '2255-06-05T23:47:34.740991Z' } });
    // A clock exchange (t1 given) has no record time put in it, and needs none.
    const clock = logEventOf(
      record({ eventName: 'meshbench.clock', timeUs: 0, attributes: [['t1', 'x']] }),
    );
    expect(clock.kind === 'event' && 'at' in clock.event).toBe(false);
    expect(thrown(record({ eventName: 'meshbench.clock', timeUs: 0 }))).not.toBeNull();
  });

  it('reads the run from the record, its scope, then its resource, and env from the resource', () => {
    const run = (a: string | number, s: string, r: string) =>
      logEventOf(
        record({
          eventName: 'meshbench.change',
          attributes: [['meshbench.run', a]],
          scopeAttributes: [['meshbench.run', s]],
          resourceAttributes: [['meshbench.run', r]],
        }),
      );
    expect(run('a', 's', 'r')).toMatchObject({ runRef: 'a' });
    expect(run('', 's', 'r')).toMatchObject({ runRef: 's' });
    expect(run(5, '', 'r')).toMatchObject({ runRef: 'r' });
    expect(run('', '', '')).toMatchObject({ runRef: null });
    const env = (resourceAttributes: Attributes) =>
      logEventOf(record({ eventName: 'meshbench.change', resourceAttributes }));
    expect(
      env([
        ['deployment.environment', 'b'],
        ['deployment.environment.name', 'a'],
      ]),
    ).toMatchObject({ env: 'a' });
    expect(
      env([
        ['deployment.environment.name', ''],
        ['deployment.environment', 'b'],
      ]),
    ).toMatchObject({ env: 'b' });
  });
});

describe('OTLP/JSON logs, field by field', () => {
  const body = (lr: object) =>
    JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [lr] }] }] });
  const where = 'resourceLogs[0].scopeLogs[0].logRecords[0]';
  const attribute = (value: unknown) =>
    decodeLogsJson(body({ attributes: [{ key: 'k', value }] }))[0]?.attributes[0]?.[1];
  const error = (text: string) => {
    try {
      decodeLogsJson(text);
    } catch (e) {
      expect(e).toBeInstanceOf(OtlpDecodeError);
      return (e as Error).message;
    }
    return null;
  };

  it('names each container that is not what it must be', () => {
    expect(error('{')).toMatch(/^the JSON body could not be parsed: /);
    expect(error('[]')).toBe('the JSON body must be an ExportLogsServiceRequest object');
    expect(error('null')).toBe('the JSON body must be an ExportLogsServiceRequest object');
    expect(error('{"resourceLogs":[5]}')).toBe('resourceLogs[0] must be an object');
    expect(error('{"resourceLogs":[{"resource":5}]}')).toBe(
      'resourceLogs[0].resource must be an object',
    );
    expect(error('{"resourceLogs":[{"resource":{"attributes":{}}}]}')).toBe(
      'resourceLogs[0].resource.attributes must be an array',
    );
    expect(error('{"resourceLogs":[{"scopeLogs":{}}]}')).toBe(
      'resourceLogs[0].scopeLogs must be an array',
    );
    expect(error('{"resourceLogs":[{"scopeLogs":[[]]}]}')).toBe(
      'resourceLogs[0].scopeLogs[0] must be an object',
    );
    expect(error('{"resourceLogs":[{"scopeLogs":[{"scope":[]}]}]}')).toBe(
      'resourceLogs[0].scopeLogs[0].scope must be an object',
    );
    expect(error(body(null as never))).toBe(`${where} must be an object`);
    expect(error(body({ eventName: 5 }))).toBe(`${where}.eventName must be a string`);
    expect(error(body({ attributes: [5] }))).toBe(
      `${where}.attributes[0] must be a KeyValue object`,
    );
    expect(error(body({ attributes: [{ key: 1 }] }))).toBe(
      `${where}.attributes[0].key must be a string`,
    );
    expect(decodeLogsJson('{}')).toEqual([]);
    expect(decodeLogsJson('{"resourceLogs":null}')).toEqual([]);
  });

  it('reads times as unsigned 64-bit nanoseconds, truncated to microseconds', () => {
    const times = (timeUnixNano: unknown) => decodeLogsJson(body({ timeUnixNano }))[0]?.timeUs;
    expect(times(1999)).toBe(1);
    expect(times(0)).toBe(0);
    expect(times(null)).toBe(0);
    expect(times('1999')).toBe(1);
    // 2^64 - 1 ns.
    expect(times('18446744073709551615')).toBe(Number(18446744073709551615n / 1000n));
    expect(error(body({ timeUnixNano: '18446744073709551616' }))).toBe(
      `${where}.timeUnixNano is larger than a fixed64`,
    );
    for (const bad of [-1, 1.5, '-1', '1.5', '', '123456789012345678901'])
      expect(error(body({ observedTimeUnixNano: bad }))).toBe(
        `${where}.observedTimeUnixNano must be an unsigned 64-bit integer in nanoseconds`,
      );
  });

  it('reads each kind of AnyValue, and names one of the wrong type', () => {
    expect(attribute({ stringValue: '' })).toBe('');
    expect(attribute({ boolValue: false })).toBe(false);
    expect(attribute({ intValue: 7 })).toBe(7);
    expect(attribute({ intValue: '-9007199254740991' })).toBe(-9007199254740991);
    expect(attribute({ intValue: '-9007199254740993' })).toBe('-9007199254740993');
    expect(attribute({ doubleValue: 0.5 })).toBe(0.5);
    expect(attribute({ doubleValue: '2.5' })).toBe(2.5);
    expect(attribute({ doubleValue: 'Infinity' })).toBe(Number.POSITIVE_INFINITY);
    expect(attribute({ arrayValue: {} })).toEqual([]);
    expect(attribute({ kvlistValue: null })).toEqual({});
    expect(attribute({ kvlistValue: { values: [{ key: 'a', value: { intValue: 1 } }] } })).toEqual({
      a: 1,
    });
    expect(attribute({ bytesValue: 'AAE=' })).toBe('AAE=');
    expect(attribute({})).toBeNull();
    expect(attribute(null)).toBeNull();
    const v = `${where}.attributes[0].value`;
    const wrong = (value: unknown) => error(body({ attributes: [{ key: 'k', value }] }));
    expect(wrong(5)).toBe(`${v} must be an AnyValue object`);
    expect(wrong({ stringValue: 1 })).toBe(`${v}.stringValue must be a string`);
    expect(wrong({ boolValue: 'true' })).toBe(`${v}.boolValue must be a boolean`);
    for (const i of [1.5, '1.5', '', '123456789012345678901', true])
      expect(wrong({ intValue: i })).toBe(`${v}.intValue must be a 64-bit integer`);
    for (const d of ['x', ' ', '', true])
      expect(wrong({ doubleValue: d })).toBe(`${v}.doubleValue must be a number`);
    expect(wrong({ arrayValue: 5 })).toBe(`${v}.arrayValue must be an object`);
    expect(wrong({ arrayValue: { values: {} } })).toBe(`${v}.arrayValue.values must be an array`);
    expect(wrong({ arrayValue: { values: [5] } })).toBe(
      `${v}.arrayValue.values[0] must be an AnyValue object`,
    );
    expect(wrong({ kvlistValue: [] })).toBe(`${v}.kvlistValue must be an object`);
    expect(wrong({ kvlistValue: { values: 5 } })).toBe(`${v}.kvlistValue.values must be an array`);
    expect(wrong({ kvlistValue: { values: [{ key: 'a', value: 5 }] } })).toBe(
      `${v}.kvlistValue.values[0].value must be an AnyValue object`,
    );
    expect(wrong({ bytesValue: 5 })).toBe(`${v}.bytesValue must be a base64 string`);
  });

  it('encodes partial_success with only the fields it has', () => {
    expect(
      Response.toObject(Response.decode(encodeLogsResponse(0, 'held')), { longs: Number }),
    ).toEqual({ partialSuccess: { errorMessage: 'held' } });
    expect(
      Response.toObject(Response.decode(encodeLogsResponse(2, '')), { longs: Number }),
    ).toEqual({ partialSuccess: { rejectedLogRecords: 2 } });
  });
});
