// Gatling's binary simulation.log (Gatling 3.13.0 on: gatling/gatling efd3ec7ce "switch to a
// binary log file", 81fa5343d "cache Strings", 9dd6fefe8 "String writing optimization", all
// before tag v3.13.0; unchanged since up to 8bb193bdf5d0f54cf803dcbc3c6846306c38c202, 3.15.1),
// read as its bytes arrive. Follows gatling-core .../stats/writer/LogFileDataWriter.scala
// (BufferedFileChannelWriter, the *MessageSerializer classes), RecordHeader.scala,
// StringInternals.java and gatling-charts .../stats/LogFileReader.scala (LogFileParser) at that
// commit. Every number is big-endian (java.nio.ByteBuffer, DataInputStream). A record is its
// header byte and its fields:
//   0 RUN      gatlingVersion, simulationClassName: string; start: long (epoch ms);
//              runDescription: string; scenarios: int count, strings; assertions: int count,
//              each an int length and that many bytes (boopickle, not read here)
//   1 REQUEST  groups: int count, cached strings; name: cached string; start, end: int (ms
//              after the RUN start); status: boolean (1 = OK); message: cached string ("" none)
//   2 USER     scenario: int (its index in RUN); start: boolean; timestamp: int
//   3 GROUP    groups: int count, cached strings; start, end, cumulatedResponseTime: int;
//              status: boolean
//   4 ERROR    message: cached string; timestamp: int
// A string is an int byte count, 0 for "", else that many bytes of Java's String value and its
// coder byte (0 LATIN1: a byte a char; 1 UTF16: two bytes a char in the writing JVM's byte
// order, little-endian on x86 and ARM, read so here). A cached string is an int index: > 0
// the first time, followed by the string; -index afterwards.

/**
 * A binary simulation.log of Gatling 3.13 on: RUN header byte 0, then the version as an int
 * length and its bytes (LogFileDataWriter RunMessageSerializer). `head` as latin1 or UTF-8
 * text (the opening bytes are ASCII).
 */
export function isGatlingBinaryLog(head: string): boolean {
  const at = (i: number) => head.charCodeAt(i);
  return (
    head.length > 6 &&
    at(0) === 0 &&
    at(1) === 0 &&
    at(2) === 0 &&
    at(3) === 0 &&
    at(4) > 0 &&
    at(4) < 64 &&
    /^\d+\./.test(head.slice(5, 12))
  );
}

/** Bytes of a stream needed to tell a binary simulation.log. */
export const GATLING_BINARY_HEAD = 12;

/** Why a binary simulation.log given as text is refused (it is read from its bytes). */
export const GATLING_BINARY_AS_TEXT =
  'a binary simulation.log (Gatling 3.13 or later), read from its bytes as uploaded, not from text';

/** Words for a binary simulation.log sent as another format (not UTF-8), else ''. */
export function gatlingBinaryHint(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, GATLING_BINARY_HEAD)).toString('latin1');
  return isGatlingBinaryLog(head)
    ? '; it is a binary simulation.log (Gatling 3.13 or later): post it with format=gatling or auto'
    : '';
}

export type GatlingRecord =
  | {
      kind: 'run';
      version: string;
      simulation: string;
      /** Epoch ms; the other records' times are int ms after it. */
      start: number;
      description: string;
      scenarios: string[];
      /** Each assertion's boopickle bytes, as written. */
      assertions: Uint8Array[];
    }
  | {
      kind: 'request';
      groups: string[];
      name: string;
      start: number;
      end: number;
      ok: boolean;
      message: string;
    }
  | { kind: 'user'; scenario: number; start: boolean; timestamp: number }
  | {
      kind: 'group';
      groups: string[];
      start: number;
      end: number;
      cumulatedResponseTime: number;
      ok: boolean;
    }
  | { kind: 'error'; message: string; timestamp: number };

/** A stream that is not a binary simulation.log, or breaks its rules. */
export class GatlingBinaryError extends Error {}

/** The bytes ended inside a record: wait for more. */
const MORE = Symbol('more');

const utf16 = new TextDecoder('utf-16le');

/** Reads one record from held bytes; throws MORE when they end inside it. */
class Cursor {
  at = 0;
  /** Strings first sent in this record: cached once the record is whole. */
  added: [number, string][] = [];
  constructor(
    private readonly b: Buffer,
    private readonly strings: Map<number, string>,
    private readonly maxBytes: number,
  ) {}

  need(n: number): void {
    if (this.at + n > this.b.length) throw MORE;
  }

  byte(): number {
    this.need(1);
    return this.b[this.at++] as number;
  }

  /** Java's DataInputStream.readBoolean: any byte but 0 is true. */
  boolean(): boolean {
    return this.byte() !== 0;
  }

  int(): number {
    this.need(4);
    const v = this.b.readInt32BE(this.at);
    this.at += 4;
    return v;
  }

  long(what: string): number {
    this.need(8);
    const v = this.b.readBigInt64BE(this.at);
    this.at += 8;
    if (v < BigInt(Number.MIN_SAFE_INTEGER) || v > BigInt(Number.MAX_SAFE_INTEGER))
      throw new GatlingBinaryError(`${what} ${v} is out of range`);
    return Number(v);
  }

  /** A count or length, >= 0 and within the limit of a record. */
  size(what: string, each: number): number {
    const n = this.int();
    if (n < 0) throw new GatlingBinaryError(`${what} is ${n}, below 0`);
    if (n * each > this.maxBytes) throw new TooLarge(n * each);
    return n;
  }

  bytes(): Uint8Array {
    const n = this.size('a byte count', 1);
    this.need(n);
    const out = Uint8Array.prototype.slice.call(this.b, this.at, this.at + n);
    this.at += n;
    return out;
  }

  string(): string {
    const n = this.size('a string length', 1);
    if (n === 0) return '';
    this.need(n + 1);
    const from = this.at;
    const coder = this.b[from + n] as number;
    this.at += n + 1;
    if (coder === 0) return this.b.toString('latin1', from, from + n);
    if (coder === 1 && n % 2 === 0) return utf16.decode(this.b.subarray(from, from + n));
    throw new GatlingBinaryError(
      coder === 1
        ? `a UTF16 string of ${n} bytes (an odd count)`
        : `a string coder ${coder} (0 LATIN1 or 1 UTF16)`,
    );
  }

  cached(): string {
    const index = this.int();
    if (index >= 0) {
      const s = this.string();
      this.added.push([index, s]);
      return s;
    }
    const s = this.strings.get(-index) ?? this.added.find(([i]) => i === -index)?.[1];
    if (s === undefined)
      throw new GatlingBinaryError(`cached string ${-index}, which the file never sent`);
    return s;
  }

  groups(): string[] {
    const n = this.size('a group count', 4);
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.cached());
    return out;
  }
}

/** A record (or a string or count in it) over the limit of bytes a record may hold. */
export class TooLarge extends Error {
  constructor(readonly bytes: number) {
    super(`a record of at least ${bytes} bytes`);
  }
}

const HEADERS = '0 RUN, 1 REQUEST, 2 USER, 3 GROUP, 4 ERROR';

/**
 * Gatling's binary simulation.log as its bytes arrive: each whole record to `onRecord`, in
 * order; held between writes only the bytes of an unfinished record.
 */
export class GatlingBinaryReader {
  /** Whole records read. */
  records = 0;
  /** Bytes of the whole records read. */
  offset = 0;
  private held: Buffer = Buffer.alloc(0);
  private readonly strings = new Map<number, string>();
  private run: { start: number } | null = null;

  constructor(
    private readonly maxRecordBytes: number,
    private readonly onRecord: (record: GatlingRecord) => void,
  ) {}

  /** Bytes of an unfinished record are held: the stream so far ends inside it. */
  get pending(): boolean {
    return this.held.length > 0;
  }

  write(chunk: Uint8Array): void {
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const b = this.held.length === 0 ? bytes : Buffer.concat([this.held, bytes]);
    const cursor = new Cursor(b, this.strings, this.maxRecordBytes);
    let at = 0;
    while (at < b.length) {
      cursor.at = at;
      cursor.added.length = 0;
      let record: GatlingRecord;
      try {
        record = this.record(cursor);
      } catch (error) {
        if (error === MORE) break;
        if (error instanceof GatlingBinaryError) {
          throw new GatlingBinaryError(
            `record ${this.records + 1} (byte ${this.offset + 1}): ${error.message}`,
          );
        }
        throw error;
      }
      for (const [i, s] of cursor.added) this.strings.set(i, s);
      this.records++;
      this.offset += cursor.at - at;
      at = cursor.at;
      this.onRecord(record);
    }
    // Copied: a small rest must not keep a large chunk alive.
    this.held = at === b.length ? Buffer.alloc(0) : Buffer.from(b.subarray(at));
    if (this.held.length > this.maxRecordBytes) throw new TooLarge(this.held.length);
  }

  private record(c: Cursor): GatlingRecord {
    const header = c.byte();
    if (this.run === null) {
      if (header !== 0) {
        throw new GatlingBinaryError(
          `header ${header}: the file does not open with the RUN record (header 0)`,
        );
      }
      const version = c.string();
      const simulation = c.string();
      const start = c.long('the run start');
      const description = c.string();
      const scenarios: string[] = [];
      for (let i = c.size('a scenario count', 4); i > 0; i--) scenarios.push(c.string());
      const assertions: Uint8Array[] = [];
      for (let i = c.size('an assertion count', 4); i > 0; i--) assertions.push(c.bytes());
      this.run = { start };
      return { kind: 'run', version, simulation, start, description, scenarios, assertions };
    }
    const t0 = this.run.start;
    switch (header) {
      case 1: {
        const groups = c.groups();
        const name = c.cached();
        const start = t0 + c.int();
        const end = t0 + c.int();
        const ok = c.boolean();
        const message = c.cached();
        return { kind: 'request', groups, name, start, end, ok, message };
      }
      case 2: {
        const scenario = c.int();
        const start = c.boolean();
        return { kind: 'user', scenario, start, timestamp: t0 + c.int() };
      }
      case 3: {
        const groups = c.groups();
        const start = t0 + c.int();
        const end = t0 + c.int();
        const cumulatedResponseTime = c.int();
        return { kind: 'group', groups, start, end, cumulatedResponseTime, ok: c.boolean() };
      }
      case 4: {
        const message = c.cached();
        return { kind: 'error', message, timestamp: t0 + c.int() };
      }
      default:
        throw new GatlingBinaryError(
          header === 0
            ? 'a second RUN record (only the first record is one)'
            : `header ${header} is no Gatling record (${HEADERS})`,
        );
    }
  }
}
