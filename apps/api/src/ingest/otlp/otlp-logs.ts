// Decodes OTLP logs requests (ExportLogsServiceRequest) from protobuf and from OTLP/JSON into
// the same plain records: where each one is, its event name, its time in microseconds, and
// its attributes and its resource's and scope's as JSON values. Field numbers and types are
// those of open-telemetry/opentelemetry-proto at ac2c4b5d1f3a6079de62f9afec860158ecc8af09
// (the vendored subset logs.proto beside this file; its tests encode with it). The protobuf
// decoder is hand-written: the OpenTelemetry JS project's generated code
// (@opentelemetry/otlp-transformer 0.217) has no LogRecord.event_name (field 12), which
// carries the event's name in the current proto. Unknown fields are skipped, as protobuf
// requires. OTLP/JSON follows the specification's JSON mapping (lowerCamelCase names, 64-bit
// integers as decimal strings or numbers, bytes as base64).
import protobuf from 'protobufjs/minimal.js';
import { OtlpDecodeError } from './otlp-message.ts';
import { StringTable } from './otlp-reader.ts';

/** An attribute's value as JSON: AnyValue's string, bool, int, double, array or kvlist. */
export type AttributeValue =
  | string
  | number
  | boolean
  | null
  | AttributeValue[]
  | { [key: string]: AttributeValue };

export type Attributes = [key: string, value: AttributeValue][];

export interface WireLogRecord {
  /** resourceLogs[i].scopeLogs[j].logRecords[k] */
  resource: number;
  scope: number;
  index: number;
  /** LogRecord.event_name ('' when not set). */
  eventName: string;
  /** time_unix_nano in microseconds (truncated, as the events API reads digits past 6); 0: unset. */
  timeUs: number;
  /** observed_time_unix_nano in microseconds; 0: unset. */
  observedUs: number;
  attributes: Attributes;
  /** The resource's attributes (one array shared by its records). */
  resourceAttributes: Attributes;
  /** The scope's attributes (one array shared by its records). */
  scopeAttributes: Attributes;
}

export const recordPath = (r: Pick<WireLogRecord, 'resource' | 'scope' | 'index'>) =>
  `resourceLogs[${r.resource}].scopeLogs[${r.scope}].logRecords[${r.index}]`;

const strings = new StringTable();
const TWO_32 = 4_294_967_296;
const NO_ATTRIBUTES: Attributes = [];

/**
 * Nanoseconds since the epoch (lo + hi * 2^32) as whole microseconds, exactly: the quotient
 * by 1000 split so that no partial product passes 2^53.
 */
export function nanosToMicros(lo: number, hi: number): number {
  // hi * 2^32 = hi * 4294967 * 1000 + hi * 296
  return hi * 4294967 + Math.floor((hi * 296 + lo) / 1000);
}

// ---- protobuf ----

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;

type Utf8Buffer = Buffer & { utf8Slice(from: number, to: number): string };

/**
 * A string field's text. Keys and event names, which every record repeats, are one string
 * object each (looked up by their bytes); values are decoded as they come (most, such as a
 * proxy's name, differ from record to record).
 */
function readText(r: protobuf.Reader, interned: boolean): string {
  const length = r.uint32();
  const from = r.pos;
  const to = from + length;
  if (to > r.len) throw new RangeError(`index out of range: ${from} + ${length} > ${r.len}`);
  r.pos = to;
  const b = r.buf as Utf8Buffer;
  return interned && length <= 64 ? strings.get(b, from, to) : b.utf8Slice(from, to);
}

function fixed64Micros(r: protobuf.Reader): number {
  const at = r.pos;
  if (at + 8 > r.len) throw new RangeError(`index out of range: ${at} + 8 > ${r.len}`);
  r.pos = at + 8;
  const b = r.buf as Buffer;
  return nanosToMicros(b.readUInt32LE(at), b.readUInt32LE(at + 4));
}

/** An int64 as a number when it is one exactly, else its decimal digits. */
function int64Value(r: protobuf.Reader): number | string {
  const v = r.int64() as unknown as number | { low: number; high: number; toString(): string };
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : String(v);
  const value = v.high * TWO_32 + (v.low >>> 0);
  return Number.isSafeInteger(value) ? value : v.toString();
}

function readAnyValue(r: protobuf.Reader, end: number): AttributeValue {
  let value: AttributeValue = null;
  while (r.pos < end) {
    const tag = r.uint32();
    const wire = tag & 7;
    switch (tag >>> 3) {
      case 1:
        if (wire !== WIRE_BYTES) break;
        value = readText(r, false);
        continue;
      case 2:
        if (wire !== WIRE_VARINT) break;
        value = r.bool();
        continue;
      case 3:
        if (wire !== WIRE_VARINT) break;
        value = int64Value(r);
        continue;
      case 4:
        if (wire !== WIRE_FIXED64) break;
        value = r.double();
        continue;
      case 5: {
        if (wire !== WIRE_BYTES) break;
        const to = r.uint32() + r.pos;
        const values: AttributeValue[] = [];
        while (r.pos < to) {
          const t = r.uint32();
          if (t >>> 3 === 1 && (t & 7) === WIRE_BYTES)
            values.push(readAnyValue(r, r.uint32() + r.pos));
          else r.skipType(t & 7);
        }
        value = values;
        continue;
      }
      case 6: {
        if (wire !== WIRE_BYTES) break;
        const to = r.uint32() + r.pos;
        const object: { [key: string]: AttributeValue } = {};
        while (r.pos < to) {
          const t = r.uint32();
          if (t >>> 3 === 1 && (t & 7) === WIRE_BYTES) {
            const [key, v] = readKeyValue(r, r.uint32() + r.pos);
            object[key] = v;
          } else r.skipType(t & 7);
        }
        value = object;
        continue;
      }
      case 7:
        if (wire !== WIRE_BYTES) break;
        value = Buffer.from(r.bytes()).toString('base64');
        continue;
    }
    r.skipType(wire);
  }
  return value;
}

function readKeyValue(r: protobuf.Reader, end: number): [string, AttributeValue] {
  let key = '';
  let value: AttributeValue = null;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === ((1 << 3) | WIRE_BYTES)) key = readText(r, true);
    else if (tag === ((2 << 3) | WIRE_BYTES)) value = readAnyValue(r, r.uint32() + r.pos);
    else r.skipType(tag & 7);
  }
  return [key, value];
}

/** The attributes (field `field`, repeated KeyValue) of the message r[pos, end). */
function readAttributes(r: protobuf.Reader, end: number, field: number): Attributes {
  const out: Attributes = [];
  const want = (field << 3) | WIRE_BYTES;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === want) out.push(readKeyValue(r, r.uint32() + r.pos));
    else r.skipType(tag & 7);
  }
  return out;
}

function readLogRecord(r: protobuf.Reader, end: number, into: WireLogRecord): void {
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case (1 << 3) | WIRE_FIXED64:
        into.timeUs = fixed64Micros(r);
        continue;
      case (11 << 3) | WIRE_FIXED64:
        into.observedUs = fixed64Micros(r);
        continue;
      case (6 << 3) | WIRE_BYTES:
        if (into.attributes === NO_ATTRIBUTES) into.attributes = [];
        into.attributes.push(readKeyValue(r, r.uint32() + r.pos));
        continue;
      case (12 << 3) | WIRE_BYTES:
        into.eventName = readText(r, true);
        continue;
    }
    r.skipType(tag & 7);
  }
}

/** The records of an ExportLogsServiceRequest in protobuf. */
export function decodeLogsProtobuf(body: Buffer): WireLogRecord[] {
  const r = protobuf.Reader.create(body);
  const out: WireLogRecord[] = [];
  try {
    let resource = 0;
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag !== ((1 << 3) | WIRE_BYTES)) {
        r.skipType(tag & 7);
        continue;
      }
      const rlEnd = r.uint32() + r.pos;
      let resourceAttributes = NO_ATTRIBUTES;
      let scope = 0;
      while (r.pos < rlEnd) {
        const t = r.uint32();
        if (t === ((1 << 3) | WIRE_BYTES)) {
          resourceAttributes = readAttributes(r, r.uint32() + r.pos, 1);
        } else if (t === ((2 << 3) | WIRE_BYTES)) {
          const slEnd = r.uint32() + r.pos;
          let scopeAttributes = NO_ATTRIBUTES;
          const first = out.length;
          let index = 0;
          while (r.pos < slEnd) {
            const s = r.uint32();
            if (s === ((1 << 3) | WIRE_BYTES)) {
              scopeAttributes = readAttributes(r, r.uint32() + r.pos, 3);
            } else if (s === ((2 << 3) | WIRE_BYTES)) {
              const record: WireLogRecord = {
                resource,
                scope,
                index: index++,
                eventName: '',
                timeUs: 0,
                observedUs: 0,
                attributes: NO_ATTRIBUTES,
                resourceAttributes,
                scopeAttributes: NO_ATTRIBUTES,
              };
              readLogRecord(r, r.uint32() + r.pos, record);
              out.push(record);
            } else r.skipType(s & 7);
          }
          // The scope (field 1) may follow its records on the wire.
          for (let i = first; i < out.length; i++)
            (out[i] as WireLogRecord).scopeAttributes = scopeAttributes;
          scope++;
        } else r.skipType(t & 7);
      }
      // The resource (field 1) may follow its scopes on the wire.
      for (let i = out.length - 1; i >= 0 && (out[i] as WireLogRecord).resource === resource; i--)
        (out[i] as WireLogRecord).resourceAttributes = resourceAttributes;
      resource++;
    }
    if (r.pos > r.len) throw new RangeError('a field runs past the end of the body');
  } catch (error) {
    // protobufjs throws RangeError past the end and Error for an invalid wire type.
    if (error instanceof Error) {
      throw new OtlpDecodeError(
        `the protobuf body is not an ExportLogsServiceRequest: ${(error as Error).message}`,
      );
    }
    throw error;
  }
  return out;
}

// ---- OTLP/JSON ----

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function arrayAt(v: unknown, where: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new OtlpDecodeError(`${where} must be an array`);
  return v;
}

function objectAt(v: unknown, where: string): Record<string, unknown> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new OtlpDecodeError(`${where} must be an object`);
  return v;
}

/** A 64-bit integer of OTLP/JSON (a decimal string or a number) in nanoseconds, as µs. */
function jsonNanosToMicros(v: unknown, where: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return Math.floor(v / 1000);
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) {
    const ns = BigInt(v);
    if (ns >= 1n << 64n) throw new OtlpDecodeError(`${where} is larger than a fixed64`);
    return Number(ns / 1000n);
  }
  throw new OtlpDecodeError(`${where} must be an unsigned 64-bit integer in nanoseconds`);
}

function jsonAnyValue(v: unknown, where: string): AttributeValue {
  if (v === undefined || v === null) return null;
  if (!isObject(v)) throw new OtlpDecodeError(`${where} must be an AnyValue object`);
  if ('stringValue' in v) {
    if (typeof v.stringValue !== 'string')
      throw new OtlpDecodeError(`${where}.stringValue must be a string`);
    return v.stringValue;
  }
  if ('boolValue' in v) {
    if (typeof v.boolValue !== 'boolean')
      throw new OtlpDecodeError(`${where}.boolValue must be a boolean`);
    return v.boolValue;
  }
  if ('intValue' in v) {
    const i = v.intValue;
    if (typeof i === 'number' && Number.isInteger(i)) return i;
    if (typeof i === 'string' && /^-?\d{1,20}$/.test(i)) {
      const n = Number(i);
      return Number.isSafeInteger(n) ? n : i;
    }
    throw new OtlpDecodeError(`${where}.intValue must be a 64-bit integer`);
  }
  if ('doubleValue' in v) {
    const d = v.doubleValue;
    if (typeof d === 'number') return d;
    if (typeof d === 'string' && d.trim() !== '' && !Number.isNaN(Number(d))) return Number(d);
    throw new OtlpDecodeError(`${where}.doubleValue must be a number`);
  }
  if ('arrayValue' in v) {
    const values = arrayAt(
      objectAt(v.arrayValue, `${where}.arrayValue`)?.values,
      `${where}.arrayValue.values`,
    );
    return values.map((x, i) => jsonAnyValue(x, `${where}.arrayValue.values[${i}]`));
  }
  if ('kvlistValue' in v) {
    const values = arrayAt(
      objectAt(v.kvlistValue, `${where}.kvlistValue`)?.values,
      `${where}.kvlistValue.values`,
    );
    const out: { [key: string]: AttributeValue } = {};
    values.forEach((kv, i) => {
      const [key, value] = jsonKeyValue(kv, `${where}.kvlistValue.values[${i}]`);
      out[key] = value;
    });
    return out;
  }
  if ('bytesValue' in v) {
    if (typeof v.bytesValue !== 'string')
      throw new OtlpDecodeError(`${where}.bytesValue must be a base64 string`);
    return v.bytesValue;
  }
  return null;
}

function jsonKeyValue(kv: unknown, where: string): [string, AttributeValue] {
  if (!isObject(kv)) throw new OtlpDecodeError(`${where} must be a KeyValue object`);
  if (typeof kv.key !== 'string') throw new OtlpDecodeError(`${where}.key must be a string`);
  return [kv.key, jsonAnyValue(kv.value, `${where}.value`)];
}

function jsonAttributes(v: unknown, where: string): Attributes {
  return arrayAt(v, where).map((kv, i) => jsonKeyValue(kv, `${where}[${i}]`));
}

/** The records of an ExportLogsServiceRequest in OTLP/JSON. */
export function decodeLogsJson(text: string): WireLogRecord[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new OtlpDecodeError(`the JSON body could not be parsed: ${(error as Error).message}`);
  }
  if (!isObject(parsed)) {
    throw new OtlpDecodeError('the JSON body must be an ExportLogsServiceRequest object');
  }
  const out: WireLogRecord[] = [];
  arrayAt(parsed.resourceLogs, '"resourceLogs"').forEach((rl, resource) => {
    const rlWhere = `resourceLogs[${resource}]`;
    if (!isObject(rl)) throw new OtlpDecodeError(`${rlWhere} must be an object`);
    const resourceAttributes = jsonAttributes(
      objectAt(rl.resource, `${rlWhere}.resource`)?.attributes,
      `${rlWhere}.resource.attributes`,
    );
    arrayAt(rl.scopeLogs, `${rlWhere}.scopeLogs`).forEach((sl, scope) => {
      const slWhere = `${rlWhere}.scopeLogs[${scope}]`;
      if (!isObject(sl)) throw new OtlpDecodeError(`${slWhere} must be an object`);
      const scopeAttributes = jsonAttributes(
        objectAt(sl.scope, `${slWhere}.scope`)?.attributes,
        `${slWhere}.scope.attributes`,
      );
      arrayAt(sl.logRecords, `${slWhere}.logRecords`).forEach((lr, index) => {
        const where = `${slWhere}.logRecords[${index}]`;
        if (!isObject(lr)) throw new OtlpDecodeError(`${where} must be an object`);
        const eventName = lr.eventName ?? '';
        if (typeof eventName !== 'string')
          throw new OtlpDecodeError(`${where}.eventName must be a string`);
        out.push({
          resource,
          scope,
          index,
          eventName,
          timeUs: jsonNanosToMicros(lr.timeUnixNano, `${where}.timeUnixNano`),
          observedUs: jsonNanosToMicros(lr.observedTimeUnixNano, `${where}.observedTimeUnixNano`),
          attributes: jsonAttributes(lr.attributes, `${where}.attributes`),
          resourceAttributes,
          scopeAttributes,
        });
      });
    });
  });
  return out;
}

/**
 * ExportLogsServiceResponse in protobuf: partial_success {rejected_log_records = 1,
 * error_message = 2} when records were rejected or there is something to say.
 */
export function encodeLogsResponse(rejected: number, message: string): Uint8Array {
  const w = protobuf.Writer.create();
  if (rejected === 0 && !message) return w.finish();
  const inner = protobuf.Writer.create();
  if (rejected > 0) inner.uint32(8).int64(rejected);
  if (message) inner.uint32(18).string(message);
  const bytes = inner.finish();
  return w.uint32(10).bytes(bytes).finish();
}
