// Decodes Remote-Write requests without generated code: prometheus.WriteRequest (1.0) and
// io.prometheus.write.v2.Request (2.0), field numbers and types as in the vendored subset
// of the upstream protos beside this file (remote_write.proto, write_v2.proto; prometheus/
// prometheus prompb/ at d15adb9ad7e5d9fbde3a9a8f30200593a5a14d86). Both become the same
// series: labels as name/value pairs, samples with their start, native histograms with
// their spans and counts, exemplars, and the metric type and unit where the request says.
// Unknown fields are skipped, as protobuf requires; int64/uint64 are read exactly up to
// 2^53 (a larger count is flagged, never rounded silently). Short strings (label names and
// values, which every request repeats) are one string object each, looked up by their bytes.
import { hashBytes } from '../../domain/earliest-by-key.ts';
import { StringTable } from '../otlp/otlp-reader.ts';

const strings = new StringTable();
const MAX_INTERNED_BYTES = 64;

/**
 * Label sets by the bytes of their Label fields: an open-addressing table of the decoded
 * arrays, emptied when it fills. Every request repeats its label sets, so most series are
 * found here by a hash and a compare of their bytes, with no string decoded.
 */
class LabelSets {
  private readonly size = 1 << 17;
  /**
   * Twice as many slots as sets, grown as sets come (a table sized for the most sets from
   * the start is a megabyte: each look-up a cache miss).
   */
  private slots = new Int32Array(1024);
  private hashes: number[] = [];
  private bytes: Uint8Array[] = [];
  private sets: string[][] = [];

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let e = 0; e < this.hashes.length; e++) {
      let s = (this.hashes[e] as number) & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = e + 1;
    }
    this.slots = slots;
  }

  /** The label set of the Label fields at b[from, to), decoded (from `w`) if not seen. */
  find(w: Wire, from: number, to: number, end: number): string[] {
    const b = w.buf;
    const h = hashBytes(b, from, to);
    const mask = this.slots.length - 1;
    const length = to - from;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = this.slots[s] as number;
      if (e === 0) {
        const set = labelsV1(w, from, end);
        if (this.sets.length >= this.size) {
          this.slots = new Int32Array(1024);
          this.hashes = [];
          this.bytes = [];
          this.sets = [];
          return set;
        }
        this.hashes.push(h);
        this.bytes.push(b.subarray(from, to).slice());
        this.sets.push(set);
        this.slots[s] = this.sets.length;
        if (this.sets.length * 2 >= this.slots.length && this.sets.length < this.size) this.grow();
        return set;
      }
      if (this.hashes[e - 1] !== h) continue;
      const known = this.bytes[e - 1] as Uint8Array;
      if (known.length !== length) continue;
      // memcmp: a label set is a hundred bytes or more, compared once per series.
      if (b.compare(known, 0, length, from, to) === 0) return this.sets[e - 1] as string[];
    }
  }
}
const labelSets = new LabelSets();

/** Metric types: the same numbers in 1.0's MetricMetadata and 2.0's Metadata. */
export const METRIC_TYPE = {
  unknown: 0,
  counter: 1,
  gauge: 2,
  histogram: 3,
  gaugeHistogram: 4,
  summary: 5,
  info: 6,
  stateset: 7,
} as const;

/** Histogram.ResetHint.GAUGE (RESET_HINT_GAUGE): a gauge histogram. */
export const RESET_HINT_GAUGE = 3;

export interface BucketSpan {
  offset: number;
  length: number;
}

export interface WireHistogram {
  /** count_int or count_float; `countIsFloat` says which was sent. */
  count: number;
  countIsFloat: boolean;
  sum: number;
  schema: number;
  zeroThreshold: number;
  zeroCount: number;
  negativeSpans: BucketSpan[];
  negativeDeltas: number[];
  negativeCounts: number[];
  positiveSpans: BucketSpan[];
  positiveDeltas: number[];
  positiveCounts: number[];
  resetHint: number;
  timestamp: number;
  customValues: number[];
  /** 2.0's start_timestamp (0: unset). */
  startTimestamp: number;
  /** An integer count (count, zero count or a delta) beyond 2^53: not exact as a number. */
  inexact: boolean;
}

export interface WireExemplar {
  labels: string[];
  value: number;
  timestamp: number;
}

export interface WireSeries {
  /**
   * Name, value, name, value... as sent (2.0: looked up in the symbols). In 1.0, a label set
   * sent with the same bytes as before is the same (read-only) array as before: what it means
   * can be kept by the array.
   */
  labels: string[];
  values: number[];
  times: number[];
  /** Per sample: its start_timestamp (2.0; 0 = unset), else 0. */
  starts: number[];
  histograms: WireHistogram[];
  exemplars: WireExemplar[];
  /** 2.0: the series' Metadata type (0 when unset); 1.0: 0 (see `metadata`). */
  type: number;
  unit: string;
  /** 2.0's deprecated TimeSeries.created_timestamp (field 6; 0 = unset). */
  createdMs: number;
}

export interface WireRequest {
  version: 1 | 2;
  series: WireSeries[];
  /** 1.0's MetricMetadata by metric family name (2.0 carries it per series). */
  metadata: Map<string, { type: number; unit: string; help?: string }>;
}

export class RemoteWriteDecodeError extends Error {}

const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;
const FIXED32 = 5;
const TWO_32 = 4294967296;

class Wire {
  pos = 0;
  /** Set when a 64-bit integer read was beyond 2^53 in magnitude. */
  wide = false;
  constructor(readonly buf: Buffer) {}

  fail(what: string): never {
    throw new RemoteWriteDecodeError(`${what} (at byte ${this.pos})`);
  }

  varint32(): number {
    const b = this.buf;
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= b.length) this.fail('a varint runs past the end of the body');
      const byte = b[this.pos++] as number;
      if (shift < 32) result |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result >>> 0;
      shift += 7;
    }
    return this.fail('a varint is longer than 10 bytes');
  }

  /** An unsigned 64-bit varint as its low and high 32 bits. */
  private varint64(): [number, number] {
    const b = this.buf;
    let lo = 0;
    let hi = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= b.length) this.fail('a varint runs past the end of the body');
      const byte = b[this.pos++] as number;
      const bits = byte & 0x7f;
      if (shift < 28) lo |= bits << shift;
      else if (shift === 28) {
        lo |= (bits & 0x0f) << 28;
        hi |= bits >> 4;
      } else hi |= bits << (shift - 32);
      if ((byte & 0x80) === 0) return [lo >>> 0, hi >>> 0];
      shift += 7;
    }
    return this.fail('a varint is longer than 10 bytes');
  }

  uint64(): number {
    const [lo, hi] = this.varint64();
    // Exact up to 2^53 (high word below 2^21, or 2^53 itself); past it the sum rounds.
    if (hi > 0x1fffff && (hi !== 0x200000 || lo !== 0)) this.wide = true;
    return hi * TWO_32 + lo;
  }

  int64(): number {
    const [lo, hi] = this.varint64();
    if (hi & 0x80000000) {
      // Two's complement: -(~v + 1), exact down to -2^53.
      const nlo = ~lo >>> 0;
      const nhi = ~hi >>> 0;
      if (nhi > 0x1fffff) this.wide = true;
      return -(nhi * TWO_32 + nlo + 1);
    }
    if (hi > 0x1fffff && (hi !== 0x200000 || lo !== 0)) this.wide = true;
    return hi * TWO_32 + lo;
  }

  sint64(): number {
    const [lo, hi] = this.varint64();
    // Zigzag: n = 2m -> m, n = 2m + 1 -> -(m + 1); m = n >> 1 from both words, exact
    // while it is below 2^53.
    const m = hi * 2147483648 + (lo >>> 1);
    if (hi > 0x3fffff) this.wide = true;
    return lo & 1 ? -(m + 1) : m;
  }

  sint32(): number {
    const n = this.varint32();
    return (n >>> 1) ^ -(n & 1);
  }

  double(): number {
    if (this.pos + 8 > this.buf.length) this.fail('a double runs past the end of the body');
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  /** The end of a length-delimited field that starts here. */
  end(limit: number): number {
    const length = this.varint32();
    const end = this.pos + length;
    if (end > limit) this.fail('a field is longer than the message that holds it');
    return end;
  }

  string(limit: number): string {
    const end = this.end(limit);
    const s =
      end - this.pos > MAX_INTERNED_BYTES
        ? this.buf.toString('utf8', this.pos, end)
        : strings.get(this.buf, this.pos, end);
    this.pos = end;
    return s;
  }

  skip(wireType: number, limit: number): void {
    switch (wireType) {
      case VARINT:
        this.varint64();
        return;
      case FIXED64:
        this.pos += 8;
        break;
      case LEN:
        this.pos = this.end(limit);
        return;
      case FIXED32:
        this.pos += 4;
        break;
      default:
        this.fail(`wire type ${wireType} is not one protobuf 3 uses`);
    }
    if (this.pos > limit) this.fail('a field runs past the message that holds it');
  }

  /** A repeated scalar, packed (LEN) or one value at a time; `one` reads one value. */
  repeated(wireType: number, limit: number, into: number[], one: () => number): void {
    if (wireType === LEN) {
      const end = this.end(limit);
      while (this.pos < end) into.push(one());
      if (this.pos !== end) this.fail('a packed field is not as long as its length says');
    } else into.push(one());
  }
}

/**
 * What a series without histograms or exemplars (most) holds of them: one frozen empty
 * array for all, replaced by the series' own at its first (no two arrays per series).
 */
const NO_HISTOGRAMS: WireHistogram[] = Object.freeze([]) as unknown as WireHistogram[];
const NO_EXEMPLARS: WireExemplar[] = Object.freeze([]) as unknown as WireExemplar[];

function addHistogram(s: WireSeries, h: WireHistogram): void {
  if (s.histograms === NO_HISTOGRAMS) s.histograms = [h];
  else s.histograms.push(h);
}

function addExemplar(s: WireSeries, e: WireExemplar): void {
  if (s.exemplars === NO_EXEMPLARS) s.exemplars = [e];
  else s.exemplars.push(e);
}

/** A 1.0 series' labels until its own are found (label sets are shared, read-only arrays). */
const NO_LABELS: string[] = Object.freeze([]) as unknown as string[];

/**
 * A series' samples until its first: frozen empty arrays, replaced by arrays of one at its
 * first sample (an array pushed to from empty would take room for 17; most series have one).
 */
const NO_NUMBERS: number[] = Object.freeze([]) as unknown as number[];

/** The starts of a series whose one sample has none (1.0 sends none): shared, read-only. */
const NO_START: number[] = Object.freeze([0]) as unknown as number[];

function newSeries(labels: string[]): WireSeries {
  return {
    labels,
    values: NO_NUMBERS,
    times: NO_NUMBERS,
    starts: NO_NUMBERS,
    histograms: NO_HISTOGRAMS,
    exemplars: NO_EXEMPLARS,
    type: 0,
    unit: '',
    createdMs: 0,
  };
}

function expect(w: Wire, wireType: number, want: number, what: string): void {
  if (wireType !== want) w.fail(`${what} has wire type ${wireType}, not ${want}`);
}

/** prometheus.WriteRequest (Remote-Write 1.0). */
export function decodeWriteRequestV1(body: Buffer): WireRequest {
  const w = new Wire(body);
  const out: WireRequest = { version: 1, series: [], metadata: new Map() };
  const limit = body.length;
  while (w.pos < limit) {
    const tag = w.varint32();
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 1) {
      expect(w, wt, LEN, 'WriteRequest.timeseries');
      out.series.push(seriesV1(w, w.end(limit)));
    } else if (field === 3) {
      expect(w, wt, LEN, 'WriteRequest.metadata');
      const end = w.end(limit);
      let type = 0;
      let name = '';
      let unit = '';
      let help = '';
      while (w.pos < end) {
        const t = w.varint32();
        const f = t >>> 3;
        if (f === 1 && (t & 7) === VARINT) type = w.varint32();
        else if (f === 2 && (t & 7) === LEN) name = w.string(end);
        else if (f === 4 && (t & 7) === LEN) help = w.string(end);
        else if (f === 5 && (t & 7) === LEN) unit = w.string(end);
        else w.skip(t & 7, end);
      }
      if (name) out.metadata.set(name, { type, unit, help });
    } else w.skip(wt, limit);
  }
  return out;
}

function labelV1(w: Wire, end: number, into: string[]): void {
  let name = '';
  let value = '';
  while (w.pos < end) {
    const t = w.varint32();
    const f = t >>> 3;
    if (f === 1 && (t & 7) === LEN) name = w.string(end);
    else if (f === 2 && (t & 7) === LEN) value = w.string(end);
    else w.skip(t & 7, end);
  }
  into.push(name, value);
}

function seriesV1(w: Wire, end: number): WireSeries {
  const s = newSeries(NO_LABELS);
  // The Label fields' bytes, when they come together (as every sender writes them): looked
  // up whole, decoded only when not seen before.
  let labelsFrom = -1;
  let labelsTo = -1;
  let together = true;
  while (w.pos < end) {
    const at = w.pos;
    const tag = w.varint32();
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 1 && wt === LEN) {
      if (labelsFrom < 0) labelsFrom = at;
      else if (labelsTo !== at) together = false;
      w.pos = w.end(end);
      labelsTo = w.pos;
    } else if (field === 2 && wt === LEN) sample(w, w.end(end), s);
    else if (field === 3 && wt === LEN) addExemplar(s, exemplarV1(w, w.end(end)));
    else if (field === 4 && wt === LEN) addHistogram(s, histogram(w, w.end(end)));
    else w.skip(wt, end);
  }
  if (labelsFrom >= 0) {
    const after = w.pos;
    s.labels = together
      ? labelSets.find(w, labelsFrom, labelsTo, end)
      : labelsV1(w, labelsFrom, end);
    w.pos = after;
  }
  return s;
}

/** The Label fields of a series from `from` to its `end`, as name, value, name, value... */
function labelsV1(w: Wire, from: number, end: number): string[] {
  const labels: string[] = [];
  w.pos = from;
  while (w.pos < end) {
    const tag = w.varint32();
    if (tag >>> 3 === 1 && (tag & 7) === LEN) labelV1(w, w.end(end), labels);
    else w.skip(tag & 7, end);
  }
  return labels;
}

function sample(w: Wire, end: number, s: WireSeries): void {
  let value = 0;
  let timestamp = 0;
  let start = 0;
  while (w.pos < end) {
    const t = w.varint32();
    const f = t >>> 3;
    const wt = t & 7;
    if (f === 1 && wt === FIXED64) value = w.double();
    else if (f === 2 && wt === VARINT) timestamp = w.int64();
    else if (f === 3 && wt === VARINT) start = w.int64();
    else w.skip(wt, end);
  }
  if (s.values === NO_NUMBERS) {
    s.values = [value];
    s.times = [timestamp];
    s.starts = start === 0 ? NO_START : [start];
  } else {
    s.values.push(value);
    s.times.push(timestamp);
    if (s.starts === NO_START) s.starts = [0, start];
    else s.starts.push(start);
  }
}

function exemplarV1(w: Wire, end: number): WireExemplar {
  const e: WireExemplar = { labels: [], value: 0, timestamp: 0 };
  while (w.pos < end) {
    const t = w.varint32();
    const f = t >>> 3;
    const wt = t & 7;
    if (f === 1 && wt === LEN) labelV1(w, w.end(end), e.labels);
    else if (f === 2 && wt === FIXED64) e.value = w.double();
    else if (f === 3 && wt === VARINT) e.timestamp = w.int64();
    else w.skip(wt, end);
  }
  return e;
}

function span(w: Wire, end: number): BucketSpan {
  const s = { offset: 0, length: 0 };
  while (w.pos < end) {
    const t = w.varint32();
    const f = t >>> 3;
    if (f === 1 && (t & 7) === VARINT) s.offset = w.sint32();
    else if (f === 2 && (t & 7) === VARINT) s.length = w.varint32();
    else w.skip(t & 7, end);
  }
  return s;
}

/** Histogram: the same fields in 1.0 and 2.0 (2.0 adds start_timestamp = 17). */
function histogram(w: Wire, end: number): WireHistogram {
  const h: WireHistogram = {
    count: 0,
    countIsFloat: false,
    sum: 0,
    schema: 0,
    zeroThreshold: 0,
    zeroCount: 0,
    negativeSpans: [],
    negativeDeltas: [],
    negativeCounts: [],
    positiveSpans: [],
    positiveDeltas: [],
    positiveCounts: [],
    resetHint: 0,
    timestamp: 0,
    customValues: [],
    startTimestamp: 0,
    inexact: false,
  };
  w.wide = false;
  const sint64 = () => w.sint64();
  const double = () => w.double();
  while (w.pos < end) {
    const t = w.varint32();
    const f = t >>> 3;
    const wt = t & 7;
    switch (f) {
      case 1:
        if (wt !== VARINT) break;
        h.count = w.uint64();
        h.countIsFloat = false;
        continue;
      case 2:
        if (wt !== FIXED64) break;
        h.count = w.double();
        h.countIsFloat = true;
        continue;
      case 3:
        if (wt !== FIXED64) break;
        h.sum = w.double();
        continue;
      case 4:
        if (wt !== VARINT) break;
        h.schema = w.sint32();
        continue;
      case 5:
        if (wt !== FIXED64) break;
        h.zeroThreshold = w.double();
        continue;
      case 6:
        if (wt !== VARINT) break;
        h.zeroCount = w.uint64();
        continue;
      case 7:
        if (wt !== FIXED64) break;
        h.zeroCount = w.double();
        continue;
      case 8:
        if (wt !== LEN) break;
        h.negativeSpans.push(span(w, w.end(end)));
        continue;
      case 9:
        w.repeated(wt, end, h.negativeDeltas, sint64);
        continue;
      case 10:
        w.repeated(wt, end, h.negativeCounts, double);
        continue;
      case 11:
        if (wt !== LEN) break;
        h.positiveSpans.push(span(w, w.end(end)));
        continue;
      case 12:
        w.repeated(wt, end, h.positiveDeltas, sint64);
        continue;
      case 13:
        w.repeated(wt, end, h.positiveCounts, double);
        continue;
      case 14:
        if (wt !== VARINT) break;
        h.resetHint = w.varint32();
        continue;
      case 15:
        if (wt !== VARINT) break;
        h.timestamp = w.int64();
        continue;
      case 16:
        w.repeated(wt, end, h.customValues, double);
        continue;
      case 17:
        if (wt !== VARINT) break;
        h.startTimestamp = w.int64();
        continue;
    }
    w.skip(wt, end);
  }
  h.inexact = w.wide;
  return h;
}

/** io.prometheus.write.v2.Request (Remote-Write 2.0). */
export function decodeRequestV2(body: Buffer): WireRequest {
  const w = new Wire(body);
  const limit = body.length;
  const symbols: string[] = [];
  const series: [number, number][] = [];
  // The symbols may follow the series (any field order is valid protobuf): series are read
  // once all symbols are known.
  while (w.pos < limit) {
    const tag = w.varint32();
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 4) {
      expect(w, wt, LEN, 'Request.symbols');
      symbols.push(w.string(limit));
    } else if (field === 5) {
      expect(w, wt, LEN, 'Request.timeseries');
      const end = w.end(limit);
      series.push([w.pos, end]);
      w.pos = end;
    } else w.skip(wt, limit);
  }
  const out: WireRequest = { version: 2, series: [], metadata: new Map() };
  for (let i = 0; i < series.length; i++) {
    const [from, end] = series[i] as [number, number];
    w.pos = from;
    out.series.push(seriesV2(w, end, symbols, i));
  }
  return out;
}

function symbol(w: Wire, symbols: string[], ref: number, where: string): string {
  const s = symbols[ref];
  if (s === undefined) {
    w.fail(`${where} refers to symbol ${ref}, but the request has ${symbols.length} symbols`);
  }
  return s;
}

function refs(w: Wire, wt: number, end: number, symbols: string[], into: string[], where: string) {
  const ids: number[] = [];
  w.repeated(wt, end, ids, () => w.varint32());
  for (const id of ids) into.push(symbol(w, symbols, id, where));
}

function seriesV2(w: Wire, end: number, symbols: string[], index: number): WireSeries {
  const s = newSeries([]);
  const at = `timeseries[${index}]`;
  while (w.pos < end) {
    const tag = w.varint32();
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 1) refs(w, wt, end, symbols, s.labels, `${at}.labels_refs`);
    else if (field === 2 && wt === LEN) sample(w, w.end(end), s);
    else if (field === 3 && wt === LEN) addHistogram(s, histogram(w, w.end(end)));
    else if (field === 4 && wt === LEN) {
      const e: WireExemplar = { labels: [], value: 0, timestamp: 0 };
      const eEnd = w.end(end);
      while (w.pos < eEnd) {
        const t = w.varint32();
        const f = t >>> 3;
        if (f === 1) refs(w, t & 7, eEnd, symbols, e.labels, `${at}.exemplars.labels_refs`);
        else if (f === 2 && (t & 7) === FIXED64) e.value = w.double();
        else if (f === 3 && (t & 7) === VARINT) e.timestamp = w.int64();
        else w.skip(t & 7, eEnd);
      }
      addExemplar(s, e);
    } else if (field === 5 && wt === LEN) {
      const mEnd = w.end(end);
      while (w.pos < mEnd) {
        const t = w.varint32();
        const f = t >>> 3;
        if (f === 1 && (t & 7) === VARINT) s.type = w.varint32();
        else if (f === 4 && (t & 7) === VARINT)
          s.unit = symbol(w, symbols, w.varint32(), `${at}.metadata.unit_ref`);
        else if (f === 3 && (t & 7) === VARINT)
          symbol(w, symbols, w.varint32(), `${at}.metadata.help_ref`);
        else w.skip(t & 7, mEnd);
      }
    } else if (field === 6 && wt === VARINT) s.createdMs = w.int64();
    else w.skip(wt, end);
  }
  if (s.labels.length % 2 !== 0) {
    throw new RemoteWriteDecodeError(`${at}.labels_refs has an odd number of references`);
  }
  return s;
}
