// The protobuf reader that the OpenTelemetry project's generated decoder is given. It is
// protobufjs' own, with two reads made cheaper for OTLP, where every data point repeats
// the same attribute keys and values and carries 64-bit nanosecond times:
// - a short string is looked up by its bytes among the strings read before, so the same
//   key or value is one string object, not a new one per point (garbage collection was a
//   quarter of the API's time under load);
// - fixed64 is read as a number, as Long.toNumber() would give it, without a Long object.
import protobuf from 'protobufjs/minimal.js';
import { hashBytes } from '../../domain/earliest-by-key.ts';

const MAX_INTERNED_BYTES = 64;
const MAX_INTERNED = 1 << 16;

/** Strings by their UTF-8 bytes: an open-addressing table, emptied when it fills. */
export class StringTable {
  private slots = new Int32Array(MAX_INTERNED * 2);
  private hashes = new Int32Array(MAX_INTERNED);
  private bytes: Uint8Array[] = [];
  private strings: string[] = [];

  get size(): number {
    return this.strings.length;
  }

  /** The string of b[from, to) (decoded as UTF-8 the first time). */
  get(b: Buffer, from: number, to: number): string {
    const h = hashBytes(b, from, to);
    const mask = this.slots.length - 1;
    const length = to - from;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = this.slots[s] as number;
      if (e === 0) {
        const text = b.toString('utf8', from, to);
        if (this.strings.length >= MAX_INTERNED) {
          this.slots.fill(0);
          this.bytes = [];
          this.strings = [];
          return text;
        }
        this.hashes[this.strings.length] = h;
        // A copy: Buffer's slice() is a view (unlike Uint8Array's), which kept every request
        // body a string came from alive, and followed a buffer its caller reused.
        this.bytes.push(Uint8Array.prototype.slice.call(b, from, to));
        this.strings.push(text);
        this.slots[s] = this.strings.length;
        return text;
      }
      if (this.hashes[e - 1] !== h) continue;
      const known = this.bytes[e - 1] as Uint8Array;
      if (known.length !== length) continue;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (known[i] !== b[from + i]) {
          same = false;
          break;
        }
      }
      if (same) return this.strings[e - 1] as string;
    }
  }
}

const TWO_32 = 4_294_967_296;

export class OtlpReader extends protobuf.BufferReader {
  constructor(
    buffer: Buffer,
    private readonly table: StringTable,
  ) {
    super(buffer);
  }

  override string(): string {
    const length = this.uint32();
    const from = this.pos;
    const to = Math.min(from + length, this.len);
    this.pos = to;
    const buf = this.buf as Buffer;
    if (to - from > MAX_INTERNED_BYTES) return buf.toString('utf8', from, to);
    return this.table.get(buf, from, to);
  }

  // @ts-expect-error: a number where the declaration says Long; the mapping reads both.
  override fixed64(): number {
    const at = this.pos;
    if (at + 8 > this.len) throw new RangeError(`index out of range: ${at} + 8 > ${this.len}`);
    this.pos = at + 8;
    const buf = this.buf as Buffer;
    return buf.readUInt32LE(at + 4) * TWO_32 + buf.readUInt32LE(at);
  }
}
