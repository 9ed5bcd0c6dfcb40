// Writes Perfetto TracePackets (perfetto_trace.proto beside this file) as the bytes of a
// `Trace`: each packet is field 1 of Trace, length-delimited, so any run of them, cut
// anywhere between packets, concatenates to a valid trace. Hand-written rather than
// protobufjs' Writer because an export of 178,000 proxies writes ~600,000 packets; the
// tests decode its output with protobufjs and the vendored proto.

/** TrackEvent.Type */
export const SLICE_BEGIN = 1;
export const SLICE_END = 2;
/** TrackDescriptor.ChildTracksOrdering */
export const LEXICOGRAPHIC = 1;

// Tags: (field number << 3) | wire type (0 varint, 2 length-delimited).
const TRACE_PACKET = (1 << 3) | 2; // Trace.packet
const PACKET_TIMESTAMP = (8 << 3) | 0; // TracePacket.timestamp
const PACKET_SEQUENCE_ID = (10 << 3) | 0; // TracePacket.trusted_packet_sequence_id
const PACKET_TRACK_EVENT = (11 << 3) | 2; // TracePacket.track_event
const PACKET_TRACK_DESCRIPTOR = (60 << 3) | 2; // TracePacket.track_descriptor
const TRACK_UUID = (1 << 3) | 0; // TrackDescriptor.uuid
const TRACK_NAME = (2 << 3) | 2; // TrackDescriptor.name
const TRACK_PARENT_UUID = (5 << 3) | 0; // TrackDescriptor.parent_uuid
const TRACK_CHILD_ORDERING = (11 << 3) | 0; // TrackDescriptor.child_ordering
const TRACK_DESCRIPTION = (14 << 3) | 2; // TrackDescriptor.description
const EVENT_TYPE = (9 << 3) | 0; // TrackEvent.type
const EVENT_TRACK_UUID = (11 << 3) | 0; // TrackEvent.track_uuid
const EVENT_NAME = (23 << 3) | 2; // TrackEvent.name

const TWO_32 = 2 ** 32;

export interface TrackDescriptorFields {
  uuid: number;
  name: string;
  parentUuid?: number;
  description?: string;
  childOrdering?: number;
}

export class TraceWriter {
  private buf = Buffer.allocUnsafe(1 << 16);
  private pos = 0;

  /** `sequenceId` is every event's trusted_packet_sequence_id (one writer, one sequence). */
  constructor(private readonly sequenceId = 1) {}

  /** Bytes written so far, handed over; the writer starts empty again. */
  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.pos));
    this.pos = 0;
    return out;
  }

  get size(): number {
    return this.pos;
  }

  /** A TracePacket holding a TrackDescriptor (no timestamp: custom tracks need none). */
  track(t: TrackDescriptorFields): void {
    this.ensure(64 + 3 * (t.name.length + (t.description?.length ?? 0)));
    const packet = this.open(TRACE_PACKET);
    const descriptor = this.open(PACKET_TRACK_DESCRIPTOR);
    this.varint(TRACK_UUID);
    this.varint(t.uuid);
    this.varint(TRACK_NAME);
    this.string(t.name);
    if (t.parentUuid !== undefined) {
      this.varint(TRACK_PARENT_UUID);
      this.varint(t.parentUuid);
    }
    if (t.childOrdering !== undefined) {
      this.varint(TRACK_CHILD_ORDERING);
      this.varint(t.childOrdering);
    }
    if (t.description !== undefined) {
      this.varint(TRACK_DESCRIPTION);
      this.string(t.description);
    }
    this.close(descriptor);
    this.close(packet);
  }

  /**
   * A TracePacket holding a TrackEvent at `atUs` Unix epoch microseconds, written as
   * nanoseconds (TracePacket.timestamp). `name` only on SLICE_BEGIN: an END closes the
   * track's innermost open slice.
   */
  event(type: number, atUs: number, trackUuid: number, name?: string): void {
    this.ensure(48 + 3 * (name?.length ?? 0));
    const packet = this.open(TRACE_PACKET);
    this.varint(PACKET_TIMESTAMP);
    this.nanosFromMicros(atUs);
    this.varint(PACKET_SEQUENCE_ID);
    this.varint(this.sequenceId);
    const event = this.open(PACKET_TRACK_EVENT);
    this.varint(EVENT_TYPE);
    this.varint(type);
    this.varint(EVENT_TRACK_UUID);
    this.varint(trackUuid);
    if (name !== undefined) {
      this.varint(EVENT_NAME);
      this.string(name);
    }
    this.close(event);
    this.close(packet);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  /** Starts a length-delimited field; one byte is kept for its length. */
  private open(tag: number): number {
    this.varint(tag);
    this.buf[this.pos++] = 0;
    return this.pos;
  }

  /** Writes the length kept by `open`, moving the body when it needs more than one byte. */
  private close(start: number): void {
    const length = this.pos - start;
    if (length < 0x80) {
      this.buf[start - 1] = length;
      return;
    }
    let extra = 0;
    for (let v = length >>> 7; v >= 0x80; v >>>= 7) extra++;
    extra++;
    this.ensure(extra);
    this.buf.copy(this.buf, start + extra, start, this.pos);
    this.pos = start - 1;
    this.varint(length);
    this.pos = start + extra + length;
  }

  /** A non-negative integer below 2^53 as a varint. */
  private varint(v: number): void {
    const b = this.buf;
    while (v >= 0x80) {
      b[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    b[this.pos++] = v;
  }

  private string(s: string): void {
    // A string's UTF-8 is at most 3 bytes a UTF-16 unit; ensure() was sized for that.
    this.varint(Buffer.byteLength(s, 'utf8'));
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /**
   * µs * 1000 as a uint64 varint. Epoch nanoseconds pass 2^53, so the product is built
   * from 32-bit halves, exactly, and written seven bits at a time as protobuf does.
   */
  private nanosFromMicros(us: number): void {
    if (!Number.isInteger(us) || us < 0) throw new Error(`not a time in epoch µs: ${us}`);
    const high = Math.floor(us / TWO_32);
    const lowTimes = (us - high * TWO_32) * 1000; // < 2^42: exact
    const carry = Math.floor(lowTimes / TWO_32);
    let lo = lowTimes - carry * TWO_32;
    let hi = high * 1000 + carry;
    const b = this.buf;
    // hi:lo as one 64-bit value; each step takes the low 7 bits and shifts right by 7.
    while (hi > 0 || lo >= 0x80) {
      b[this.pos++] = (lo & 0x7f) | 0x80;
      lo = (lo >>> 7) | ((hi & 0x7f) << 25);
      lo >>>= 0;
      hi = Math.floor(hi / 0x80);
    }
    b[this.pos++] = lo;
  }
}
