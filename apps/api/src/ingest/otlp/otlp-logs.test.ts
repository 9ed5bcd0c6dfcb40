// The hand-written logs decoder against protobufjs with the vendored upstream protos: the
// same records from a protobufjs-encoded body and from its OTLP/JSON form; microseconds
// exact against BigInt; any cut or changed body is a decode error, never a crash.
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { formatTimestampUs } from '../timestamps.ts';
import { checkLogEvent, formatMicros, logEventOf } from './log-events.ts';
import {
  decodeLogsJson,
  decodeLogsProtobuf,
  encodeLogsResponse,
  nanosToMicros,
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
