// A reader of Go's encoding/gob streams, as they arrive: the type definitions a stream carries,
// then each top-level value as a plain object. Follows golang/go src/encoding/gob at
// 09408a5b454a4382cde223f6bfa6b5cde64ba026 (type.go: wireType {ArrayT, SliceT, StructT, MapT,
// GobEncoderT, BinaryMarshalerT, TextMarshalerT}, the predefined ids 1-8 and 16-23, user ids
// from 65), doc.go at 0f89b6cc42ec163d0f8678d8280af37429c53036 ("Encoding Details": unsigned
// integers below 128 as one byte, else a negated byte count and big-endian bytes; signed ones
// with the complement in bit 0; floats byte-reversed; strings and []byte as a count and bytes;
// structs as field-number deltas ended by 0; maps and slices as a count and elements; each
// message preceded by its byte count) and encoder.go / encode.go (a type definition is a
// message of its own, (-id, wireType); a GobEncoder's value is its bytes with their count).
// Interface values are refused: no format read here sends one.

/** A gob stream that breaks the rules, or holds what this reader does not take. */
export class GobError extends Error {}

type GobType =
  | { kind: 'basic'; id: number }
  | { kind: 'struct'; name: string; fields: { name: string; id: number }[] }
  | { kind: 'slice'; elem: number }
  | { kind: 'array'; elem: number; len: number }
  | { kind: 'map'; key: number; elem: number }
  | { kind: 'encoder'; name: string; how: 'gob' | 'binary' | 'text' };

const BOOL = 1;
const INT = 2;
const UINT = 3;
const FLOAT = 4;
const BYTES = 5;
const STRING = 6;
const COMPLEX = 7;
const INTERFACE = 8;

/** Bytes of a gob-encoded value (a GobEncoder's or BinaryMarshaler's output), kept as sent. */
export interface GobEncoded {
  gobType: string;
  bytes: Uint8Array;
}

export type GobValue =
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | GobEncoded
  | GobValue[]
  | Map<GobValue, GobValue>
  | { [field: string]: GobValue };

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Reads one message's bytes. */
class Cursor {
  at = 0;
  constructor(readonly b: Uint8Array) {}

  byte(): number {
    if (this.at >= this.b.length) throw new GobError('a message ends inside a value');
    return this.b[this.at++] as number;
  }

  /** An unsigned integer; past 2^53 as a bigint. */
  uint(): number | bigint {
    const first = this.byte();
    if (first < 0x80) return first;
    const n = 256 - first;
    if (n > 8) throw new GobError(`an unsigned integer of ${n} bytes (at most 8)`);
    if (this.at + n > this.b.length) throw new GobError('a message ends inside an integer');
    let v = 0;
    if (n <= 6) {
      for (let i = 0; i < n; i++) v = v * 256 + (this.b[this.at++] as number);
      return v;
    }
    let big = 0n;
    for (let i = 0; i < n; i++) big = (big << 8n) | BigInt(this.b[this.at++] as number);
    return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  }

  /** An unsigned integer that must be a count or length within this message. */
  count(): number {
    const v = this.uint();
    // Every element takes at least a byte: a count past the message's bytes is a lie.
    if (typeof v !== 'number' || v > this.b.length - this.at)
      throw new GobError(`a count of ${v} in a message of ${this.b.length} bytes`);
    return v;
  }

  int(): number | bigint {
    const u = this.uint();
    if (typeof u === 'number') {
      // Bit 0 says to complement the rest: (u >> 1) or ^(u >> 1), for u below 2^53.
      const half = Math.floor(u / 2);
      return u % 2 === 1 ? -half - 1 : half;
    }
    const half = u >> 1n;
    const v = (u & 1n) === 1n ? -half - 1n : half;
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(v)
      : v;
  }

  smallInt(what: string): number {
    const v = this.int();
    if (typeof v !== 'number') throw new GobError(`${what} out of range`);
    return v;
  }

  bytes(): Uint8Array {
    const n = this.count();
    if (this.at + n > this.b.length) throw new GobError('a message ends inside a string');
    const out = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  float(): number {
    const u = this.uint();
    const big = typeof u === 'bigint' ? u : BigInt(u);
    // Sent byte-reversed: the exponent's end first.
    const view = new DataView(new ArrayBuffer(8));
    view.setBigUint64(0, big, true);
    return view.getFloat64(0, false);
  }
}

/** Reads a gob stream's messages as they arrive and gives each top-level value. */
export class GobReader {
  private readonly types = new Map<number, GobType>();
  private held: Uint8Array = new Uint8Array(0);
  /** Bytes of the stream taken so far (where an error is). */
  offset = 0;
  /** Values read so far. */
  values = 0;

  /**
   * @param maxMessageBytes the longest message taken (one value and its type definitions)
   * @param onValue told of each top-level value, with its type's name
   */
  constructor(
    private readonly maxMessageBytes: number,
    private readonly onValue: (value: GobValue, typeName: string) => void,
  ) {}

  /** True while a message is unfinished (the stream must not end here). */
  get pending(): boolean {
    return this.held.length > 0;
  }

  write(chunk: Uint8Array): void {
    let buf: Uint8Array;
    if (this.held.length === 0) buf = chunk;
    else {
      buf = new Uint8Array(this.held.length + chunk.length);
      buf.set(this.held, 0);
      buf.set(chunk, this.held.length);
    }
    let at = 0;
    while (at < buf.length) {
      // The message's byte count: one byte, or a negated byte count and up to 8 bytes.
      const first = buf[at] as number;
      let len: number;
      let head: number;
      if (first < 0x80) {
        len = first;
        head = 1;
      } else {
        const n = 256 - first;
        if (n > 8) throw new GobError(`byte ${this.offset + at + 1}: not a gob message length`);
        if (at + 1 + n > buf.length) break;
        len = 0;
        for (let i = 0; i < n; i++) len = len * 256 + (buf[at + 1 + i] as number);
        head = 1 + n;
      }
      if (len > this.maxMessageBytes) {
        throw new GobError(
          `byte ${this.offset + at + 1}: a gob message of ${len} bytes, past the ${this.maxMessageBytes} bytes a value may have`,
        );
      }
      if (len === 0) throw new GobError(`byte ${this.offset + at + 1}: an empty gob message`);
      if (at + head + len > buf.length) break;
      this.message(buf.subarray(at + head, at + head + len), this.offset + at + head);
      at += head + len;
    }
    this.offset += at;
    this.held = at === buf.length ? new Uint8Array(0) : buf.slice(at);
    if (this.held.length > this.maxMessageBytes + 9) {
      throw new GobError(`byte ${this.offset + 1}: a gob message longer than allowed`);
    }
  }

  private message(bytes: Uint8Array, offset: number): void {
    const c = new Cursor(bytes);
    try {
      const id = c.smallInt('a type id');
      if (id < 0) {
        this.define(-id, c);
        if (c.at !== bytes.length) throw new GobError('bytes after a type definition');
        return;
      }
      const type = this.types.get(id);
      if (!type) throw new GobError(`a value of type id ${id}, which the stream never defined`);
      let value: GobValue;
      if (type.kind === 'struct') value = this.struct(type, c);
      else {
        // A value that is not a struct is sent as a field numbered 0.
        if (c.uint() !== 0) throw new GobError('a top-level value without its 0 delta');
        value = this.value(id, c);
      }
      if (c.at !== bytes.length) throw new GobError('bytes after a value');
      this.values++;
      this.onValue(value, type.kind === 'struct' || type.kind === 'encoder' ? type.name : '');
    } catch (error) {
      if (error instanceof GobError) throw new GobError(`byte ${offset + c.at}: ${error.message}`);
      throw error;
    }
  }

  /** A wireType: which of its fields is set says the kind. */
  private define(id: number, c: Cursor): void {
    if (id < 65) throw new GobError(`a definition of type id ${id}, which is predefined`);
    if (this.types.has(id)) throw new GobError(`type id ${id} defined twice`);
    let field = -1;
    let type: GobType | undefined;
    for (;;) {
      const delta = c.count();
      if (delta === 0) break;
      field += delta;
      if (type) throw new GobError('a wireType with two kinds');
      type = this.wireField(field, c);
    }
    if (!type) throw new GobError('a wireType of no kind');
    this.types.set(id, type);
  }

  private wireField(field: number, c: Cursor): GobType {
    // Each kind opens with its CommonType {Name, Id} as field 0.
    const fields = this.wireStruct(c, (n, cc) => {
      if (n === 0) return this.commonType(cc);
      if (field === 2 && n === 1) {
        const list = [];
        for (let i = 0, len = cc.count(); i < len; i++) {
          const f = this.wireStruct(cc, (m, c3) =>
            m === 0 ? utf8.decode(c3.bytes()) : c3.smallInt('a field type id'),
          );
          list.push({ name: String(f[0] ?? ''), id: Number(f[1] ?? 0) });
        }
        return list;
      }
      return cc.smallInt('a type id');
    });
    const common = (fields[0] as { name: string } | undefined) ?? { name: '' };
    switch (field) {
      case 0:
        return {
          kind: 'array',
          elem: Number(fields[1] ?? 0),
          len: Number(fields[2] ?? 0),
        };
      case 1:
        return { kind: 'slice', elem: Number(fields[1] ?? 0) };
      case 2:
        return {
          kind: 'struct',
          name: common.name,
          fields: (fields[1] as { name: string; id: number }[] | undefined) ?? [],
        };
      case 3:
        return { kind: 'map', key: Number(fields[1] ?? 0), elem: Number(fields[2] ?? 0) };
      case 4:
        return { kind: 'encoder', name: common.name, how: 'gob' };
      case 5:
        return { kind: 'encoder', name: common.name, how: 'binary' };
      case 6:
        return { kind: 'encoder', name: common.name, how: 'text' };
      default:
        throw new GobError(`a wireType field ${field}, which gob does not define`);
    }
  }

  private commonType(c: Cursor): { name: string } {
    const f = this.wireStruct(c, (n, cc) =>
      n === 0 ? utf8.decode(cc.bytes()) : cc.smallInt('a type id'),
    );
    return { name: String(f[0] ?? '') };
  }

  /** A struct of the wire types' own: its fields by number, each read by `read`. */
  private wireStruct<T>(c: Cursor, read: (field: number, c: Cursor) => T): T[] {
    const out: T[] = [];
    let field = -1;
    for (;;) {
      const delta = c.count();
      if (delta === 0) return out;
      field += delta;
      out[field] = read(field, c);
    }
  }

  private struct(type: Extract<GobType, { kind: 'struct' }>, c: Cursor) {
    const out: { [field: string]: GobValue } = {};
    let field = -1;
    for (;;) {
      const delta = c.count();
      if (delta === 0) return out;
      field += delta;
      const f = type.fields[field];
      if (!f) throw new GobError(`field ${field} of ${type.name}, which has ${type.fields.length}`);
      out[f.name] = this.value(f.id, c);
    }
  }

  private value(id: number, c: Cursor): GobValue {
    switch (id) {
      case BOOL:
        return c.uint() !== 0;
      case INT:
        return c.int();
      case UINT:
        return c.uint();
      case FLOAT:
        return c.float();
      case BYTES:
        return c.bytes();
      case STRING:
        return utf8.decode(c.bytes());
      case COMPLEX:
        return [c.float(), c.float()];
      case INTERFACE:
        throw new GobError('an interface value, which this reader does not take');
    }
    const type = this.types.get(id);
    if (!type) throw new GobError(`type id ${id}, which the stream never defined`);
    switch (type.kind) {
      case 'struct':
        return this.struct(type, c);
      case 'slice':
      case 'array': {
        const n = c.count();
        if (type.kind === 'array' && n !== type.len)
          throw new GobError(`an array of ${n} elements, its type says ${type.len}`);
        const out: GobValue[] = [];
        for (let i = 0; i < n; i++) out.push(this.value(type.elem, c));
        return out;
      }
      case 'map': {
        const n = c.count();
        const out = new Map<GobValue, GobValue>();
        for (let i = 0; i < n; i++) out.set(this.value(type.key, c), this.value(type.elem, c));
        return out;
      }
      case 'encoder':
        return { gobType: type.name, bytes: c.bytes() };
      default:
        throw new GobError(`type id ${id} of an unknown kind`);
    }
  }
}

/** Seconds from 0001-01-01 to 1970-01-01 UTC: golang/go src/time/time.go unixToInternal. */
const UNIX_TO_INTERNAL_S = (1969 * 365 + Math.floor(1969 / 4) - 19 + 4) * 86400;

/**
 * A time.Time as its GobEncode (MarshalBinary) writes it, to epoch microseconds (truncated):
 * version 1 (or 2, with a byte of offset seconds), int64 seconds since year 1, int32
 * nanoseconds, int16 zone offset in minutes (-1: UTC), big-endian (golang/go src/time/time.go
 * AppendBinary at 62e6931cf79735a192ed57be05005e84720ed232).
 */
export function goTimeUs(encoded: GobEncoded): number {
  const b = encoded.bytes;
  const version = b[0];
  if ((version !== 1 || b.length !== 15) && (version !== 2 || b.length !== 16)) {
    throw new GobError(`a time.Time of ${b.length} bytes, version ${version}`);
  }
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const sec = view.getBigInt64(1, false);
  const nsec = view.getInt32(9, false);
  if (nsec < 0 || nsec >= 1e9) throw new GobError(`a time.Time with ${nsec} nanoseconds`);
  const unix = Number(sec) - UNIX_TO_INTERNAL_S;
  return unix * 1e6 + Math.floor(nsec / 1000);
}
