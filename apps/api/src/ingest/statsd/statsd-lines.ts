// The StatsD line protocol and its dialects: `name:value[:value...]|type[|@rate][|#tags]
// [|T<unix s>][|c:<container>]`, several lines per datagram, events (`_e{`) and service
// checks (`_sc|`) recognised, and Telegraf's tags in the name (`name,k=v,k2=v2:value|type`).
// A line is a *shape* (name, type and every section after the value) plus its value: shapes
// repeat from datagram to datagram, so each distinct one is decoded once and found again by
// a hash of its bytes; only the value is read per line.
//
// Followed upstream (read from the source, not from memory):
// - statsd/statsd (formerly etsy/statsd) docs/metric_types.md @0375990f: types c, g, ms, s;
//   `@rate`; a signed gauge value changes the gauge; several lines per datagram.
// - Datadog's "Datagram Format and Shell Usage" (docs.datadoghq.com/extend/dogstatsd/
//   datagram_shell): `|#k:v,tag` tags, h and d types, protocol v1.1 packed values
//   (`name:1:2:3|d`), v1.2 `|c:<container id>`, v1.3 `|T<unix seconds>`; datagrams are
//   UTF-8. Its other sections (`e:` external data, `card:`) are skipped.
// - brightcove/hot-shots 17.1.1 lib/statsd.js (send) and lib/helpers.js: with
//   `telegraf: true` the merged tags go after the name as `name,k=v,k2=v2:value|type`
//   (`k:v` tags become `k=v`, tags without a colon are sent bare; `:`, `|`, `,`, CR and LF
//   in tags are replaced by `_`), otherwise as `|#k:v,k2:v2`.
// - influxdata/telegraf plugins/inputs/statsd/statsd.go @010e2320 (parseStatsdLine,
//   parseName, parseKeyValue) and statsd_test.go (TestParse_Tags, TestParseKeyValue,
//   TestParse_MeasurementsWithSameName, TestParse_DataDogTags): the bucket is everything
//   before the first `:`, split on `,`; the first part is the name, each other part a tag
//   `k=v` (a part without `=` has no key and is dropped; `k=a=b` is k with value `a=b`);
//   DogStatsD `|#` tags, when both are sent, win over the bucket's. Telegraf's graphite
//   "templates" (`.`-separated parts of a name mapped to measurement, tags and field by
//   configuration) are a setting of a Telegraf deployment, not of the line: names are kept
//   as sent, dots included.
// What no upstream defines, meshbench refuses line by line (counted as malformed, the rest of
// the datagram kept): bytes that are not UTF-8 (lone surrogates included), NUL characters
// (Postgres text cannot hold them), lines over 64 KiB, names over 1024 bytes, tag keys over 1024 and values
// over 4096 bytes (OTLP's limits), values that are not finite decimals (NaN, Infinity,
// 1e400), sample rates outside [1e-9, 1], and |T times after 9999.

import { isUtf8 } from 'node:buffer';

export type StatsdType = 'c' | 'g' | 'ms' | 'h' | 'd' | 's';

/** What a line says besides its value; the aggregator keeps its per-interval state here. */
export interface Shape {
  name: string;
  type: StatsdType;
  rate: number;
  /** Raw DogStatsD tag list (after `#`). */
  tags: string;
  /** `|T` in epoch ms, 0 when absent. */
  timestampMs: number;
  containerId: string;
  /** The series this shape belongs to, whatever its rate or timestamp. */
  seriesKey: string;
  /** Aggregator state for the current interval (owned by the sink). */
  state: unknown;
  epoch: number;
}

export interface StatsdSink {
  /**
   * One value; `delta` marks a gauge written with a sign (+5 / -3), which adds to it.
   * `integer`: a gauge's value as the line wrote it when it is a whole number beyond 2^53
   * (Envoy's uint64 gauges), which a float64 cannot hold exactly.
   */
  sample(shape: Shape, value: number, delta: boolean, integer?: string): void;
  member(shape: Shape, member: string): void;
  event(line: string): void;
  serviceCheck(line: string): void;
  malformed(line: string, reason: string): void;
}

const TYPES: Record<string, StatsdType> = { c: 'c', g: 'g', ms: 'ms', h: 'h', d: 'd', s: 's' };

/** Whether a value is a plain decimal number ("1", "-2.5", ".5", "1e3"; not "0x1", "", "NaN"). */
export function numeric(s: string): boolean {
  // Digits after the point only after a literal point: `\d+\.?\d*` could split a run of
  // digits two ways at every position, and a 65,000-digit value that ends badly then took
  // 8 s of backtracking (one datagram blocking the event loop).
  return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s);
}

/** What a line may carry (OTLP's limits for names and attributes). */
export const STATSD_LIMITS = {
  nameBytes: 1024,
  tagKeyBytes: 1024,
  tagValueBytes: 4096,
  /** Set members: a value, as a tag value. */
  memberBytes: 4096,
  /** One in a billion: below it a counter's correction (value / rate) leaves float64. */
  minSampleRate: 1e-9,
  /** timestamptz's range as OTLP takes it: to the end of year 9999, in Unix seconds. */
  maxTimestampS: Date.UTC(9999, 11, 31, 23, 59, 59) / 1000,
  /** A line longer than a UDP datagram can be (TCP): refused before it is read. */
  lineBytes: 65_536,
} as const;

const utf8Bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * Telegraf's tags in the bucket (`name,k=v,k2=v2`), as statsd.go's parseKeyValue reads
 * them: a part without `=` has no key and is dropped, `k=a=b` is k with value `a=b`, and a
 * later key wins. Returned as DogStatsD tag text (`k:v,k2:v2`): neither part can hold a `:`
 * (the bucket ends at the line's first colon) nor a `,`, so the text reads back the same.
 */
function telegrafTags(parts: string[]): string | { malformed: string } {
  const out: string[] = [];
  for (const part of parts) {
    const split = part.split('=');
    if (split.length < 2) continue;
    const key = split[0] as string;
    if (key === '') continue;
    const value = split.slice(1).join('=');
    if (utf8Bytes(key) > STATSD_LIMITS.tagKeyBytes) {
      return { malformed: `tag key over ${STATSD_LIMITS.tagKeyBytes} bytes` };
    }
    if (utf8Bytes(value) > STATSD_LIMITS.tagValueBytes) {
      return { malformed: `tag "${key}" has a value over ${STATSD_LIMITS.tagValueBytes} bytes` };
    }
    out.push(`${key}:${value}`);
  }
  return out.join(',');
}

/** Why DogStatsD tag text is refused (a key or value over its limit), or null. */
function tagsFault(raw: string): string | null {
  // In bytes: a key of 1000 "é" is 1000 UTF-16 units but 2000 bytes, over the limit.
  if (utf8Bytes(raw) <= STATSD_LIMITS.tagKeyBytes) return null;
  for (const part of raw.split(',')) {
    const i = part.indexOf(':');
    const key = i < 0 ? part : part.slice(0, i);
    if (utf8Bytes(key) > STATSD_LIMITS.tagKeyBytes) {
      return `tag key over ${STATSD_LIMITS.tagKeyBytes} bytes`;
    }
    if (i >= 0 && utf8Bytes(part.slice(i + 1)) > STATSD_LIMITS.tagValueBytes) {
      return `tag "${key}" has a value over ${STATSD_LIMITS.tagValueBytes} bytes`;
    }
  }
  return null;
}

/** The shape of a line from its name and everything from the `|` after the value on. */
export function parseShape(bucket: string, suffix: string): Shape | string {
  if (bucket.includes('\u0000') || suffix.includes('\u0000')) return 'a NUL character';
  // Telegraf: the bucket's first part is the name, the others its tags.
  const comma = bucket.indexOf(',');
  const name = comma < 0 ? bucket : bucket.slice(0, comma);
  if (name === '') return 'no metric name';
  if (utf8Bytes(name) > STATSD_LIMITS.nameBytes) {
    return `metric name over ${STATSD_LIMITS.nameBytes} bytes`;
  }
  let nameTags = '';
  if (comma >= 0) {
    const parsed = telegrafTags(bucket.slice(comma + 1).split(','));
    if (typeof parsed !== 'string') return parsed.malformed;
    nameTags = parsed;
  }
  const sections = suffix.split('|');
  // sections[0] is the empty string before the first '|'.
  const type = TYPES[sections[1] ?? ''];
  if (!type) return `unknown type "${sections[1] ?? ''}"`;
  let rate = 1;
  let lineTags = '';
  let timestampMs = 0;
  let containerId = '';
  for (let i = 2; i < sections.length; i++) {
    const s = sections[i] as string;
    if (s.startsWith('@')) {
      rate = numeric(s.slice(1)) ? Number(s.slice(1)) : Number.NaN;
      if (!(rate >= STATSD_LIMITS.minSampleRate && rate <= 1)) {
        return `sample rate "${s.slice(1)}" is not in [${STATSD_LIMITS.minSampleRate}, 1]`;
      }
    } else if (s.startsWith('#')) {
      lineTags = s.slice(1);
      const fault = tagsFault(lineTags);
      if (fault) return fault;
    } else if (s.startsWith('T')) {
      const seconds = Number(s.slice(1));
      if (!/^\d{1,12}$/.test(s.slice(1)) || seconds <= 0) {
        return `timestamp "${s.slice(1)}" is not unix seconds`;
      }
      if (seconds > STATSD_LIMITS.maxTimestampS) return `timestamp "${s.slice(1)}" is after 9999`;
      timestampMs = seconds * 1000;
    } else if (s.startsWith('c:')) {
      containerId = s.slice(2);
      if (utf8Bytes(containerId) > STATSD_LIMITS.tagValueBytes) {
        return `container id over ${STATSD_LIMITS.tagValueBytes} bytes`;
      }
    }
    // Other sections (DogStatsD's e: external data, card: cardinality) are ignored on purpose.
  }
  // Both kinds of tags as one DogStatsD list: the line's `|#` tags last, so that they win
  // over the bucket's (parseTags keeps a key's last value), as in Telegraf.
  const tags = nameTags === '' ? lineTags : lineTags === '' ? nameTags : `${nameTags},${lineTags}`;
  return {
    name,
    type,
    rate,
    tags,
    timestampMs,
    containerId,
    seriesKey: `${type}|${name}|${tags}|${containerId}`,
    state: null,
    epoch: -1,
  };
}

/** Values of a line, each checked; null when any is not a finite decimal number. */
export function parseValues(raw: string): number[] | null {
  const out: number[] = [];
  for (const s of raw.split(':')) {
    if (!numeric(s)) return null;
    const v = Number(s);
    if (!Number.isFinite(v)) return null;
    out.push(v);
  }
  return out;
}

/**
 * A value written as a whole number ("18446744073709551615", "-12", "+7"), as exact decimal
 * text without a plus sign or leading zeros; null for anything else (a fraction, an exponent).
 * Envoy writes its gauges as uint64 decimals (source/extensions/stat_sinks/common/statsd/
 * statsd.cc: StrCat of gauge.value(), and itoa in the TCP sink), beyond 2^53 for hashes.
 */
export function wholeNumber(text: string): string | null {
  const m = /^([+-]?)0*(\d+)$/.exec(text);
  if (!m) return null;
  const digits = m[2] as string;
  return m[1] === '-' && digits !== '0' ? `-${digits}` : digits;
}

/** DogStatsD tags `k:v,k2` as a record; a tag without a value maps to "". */
export function parseTags(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === '') return out;
  for (const part of raw.split(',')) {
    if (part === '') continue;
    const i = part.indexOf(':');
    if (i < 0) out[part] = '';
    else out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}

const NL = 10;
const CR = 13;
const COLON = 58;
const PIPE = 124;

/**
 * Reads datagrams (or TCP chunks ending on a line boundary) into a sink. Shapes are found
 * by two independent 32-bit hashes of their bytes plus their length; a false match needs
 * both hashes to collide, about one in 10^8 at a million distinct shapes.
 */
export class StatsdReader {
  private shapes = new Map<number, Entry[]>();
  private size = 0;

  constructor(
    private readonly sink: StatsdSink,
    private readonly maxShapes = 1_000_000,
  ) {}

  /** Forgets every shape (called between intervals when there are too many). */
  trim(): void {
    if (this.size > this.maxShapes) {
      this.shapes = new Map();
      this.size = 0;
    }
  }

  readText(text: string): number {
    return this.read(Buffer.from(text, 'utf8'));
  }

  /** Returns the number of non-empty lines. */
  read(b: Uint8Array): number {
    let lines = 0;
    let start = 0;
    const n = b.length;
    while (start < n) {
      let end = b.indexOf(NL, start);
      if (end < 0) end = n;
      let stop = end;
      if (stop > start && b[stop - 1] === CR) stop--;
      if (stop > start) {
        lines++;
        this.line(b, start, stop);
      }
      start = end + 1;
    }
    return lines;
  }

  private bytes(b: Uint8Array, from: number, to: number): Buffer {
    return Buffer.from(b.buffer, b.byteOffset + from, to - from);
  }

  private text(b: Uint8Array, from: number, to: number): string {
    return this.bytes(b, from, to).toString('utf8');
  }

  private line(b: Uint8Array, start: number, stop: number): void {
    if (stop - start > STATSD_LIMITS.lineBytes) {
      this.sink.malformed(
        this.text(b, start, start + 200),
        `a line over ${STATSD_LIMITS.lineBytes} bytes`,
      );
      return;
    }
    if (b[start] === 95 /* _ */) {
      const head = this.text(b, start, Math.min(stop, start + 4));
      if (head.startsWith('_e{')) {
        this.sink.event(this.text(b, start, stop));
        return;
      }
      if (head === '_sc|') {
        this.sink.serviceCheck(this.text(b, start, stop));
        return;
      }
    }
    // One pass: hash the name up to ':', read the value up to '|', hash the rest.
    let h1 = 0x811c9dc5;
    let h2 = 0x3b9aca07;
    let j = start;
    for (; j < stop; j++) {
      const c = b[j] as number;
      if (c === COLON) break;
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    }
    const colon = j;
    if (colon === stop) {
      this.sink.malformed(this.text(b, start, stop), 'no "name:value"');
      return;
    }
    // The colon too: `a|:1|h` and `a:1||h` hash the same bytes without it (the name `a|`
    // with `|h`, and `a` with `||h`), and one line was read as the other's shape.
    h1 = Math.imul(h1 ^ COLON, 0x01000193);
    h2 = Math.imul(h2 ^ COLON, 0x5bd1e995);
    // A plain decimal ([+-]digits[.digits], at most 15 digits): mantissa / 10^k is exact.
    j++;
    const sign = b[j];
    let negative = false;
    if (sign === 45) {
      negative = true;
      j++;
    } else if (sign === 43) j++;
    let mantissa = 0;
    let digits = 0;
    let fraction = -1;
    let plain = true;
    for (; j < stop; j++) {
      const c = b[j] as number;
      if (c === PIPE) break;
      if (c >= 48 && c <= 57) {
        mantissa = mantissa * 10 + (c - 48);
        digits++;
        if (fraction >= 0) fraction++;
      } else if (c === 46 && fraction < 0) fraction = 0;
      else plain = false;
    }
    const pipe = j;
    if (pipe === stop) {
      this.sink.malformed(this.text(b, start, stop), 'no "|type"');
      return;
    }
    for (; j < stop; j++) {
      const c = b[j] as number;
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    }
    const length = colon - start + stop - pipe;
    let shape: Shape | Malformed | undefined;
    const bucket = this.shapes.get(h1);
    if (bucket) {
      for (const s of bucket) {
        if (s.h2 === h2 && s.length === length) {
          shape = s.shape;
          break;
        }
      }
    }
    if (shape === undefined) {
      // Decoded once per shape: bytes that are not UTF-8 would be replaced by U+FFFD, and
      // the series stored under a name nobody sent.
      let parsed: Shape | string;
      if (!isUtf8(this.bytes(b, start, colon)) || !isUtf8(this.bytes(b, pipe, stop))) {
        parsed = 'not UTF-8';
      } else {
        parsed = parseShape(this.text(b, start, colon), this.text(b, pipe, stop));
      }
      shape = typeof parsed === 'string' ? { malformed: parsed } : parsed;
      const entry: Entry = { h2, length, shape };
      if (bucket) bucket.push(entry);
      else this.shapes.set(h1, [entry]);
      this.size++;
    }
    if ('malformed' in shape) {
      this.sink.malformed(this.text(b, start, stop), shape.malformed);
      return;
    }

    if (shape.type === 's') {
      const member = this.bytes(b, colon + 1, pipe);
      const fault =
        member.length > STATSD_LIMITS.memberBytes
          ? `set member over ${STATSD_LIMITS.memberBytes} bytes`
          : member.includes(0)
            ? 'a NUL character'
            : !isUtf8(member)
              ? 'not UTF-8'
              : null;
      if (fault) {
        this.sink.malformed(this.text(b, start, stop), fault);
        return;
      }
      this.sink.member(shape, member.toString('utf8'));
      return;
    }
    if (plain && digits > 0 && digits <= 15) {
      const v = fraction > 0 ? mantissa / 10 ** fraction : mantissa;
      this.sink.sample(
        shape,
        negative ? -v : v,
        shape.type === 'g' && (sign === 43 || sign === 45),
      );
      return;
    }
    // Exponents, several values (name:1:2:3|d), or garbage.
    const raw = this.text(b, colon + 1, pipe);
    const values = parseValues(raw);
    if (!values) {
      this.sink.malformed(this.text(b, start, stop), `value "${raw}" is not a number`);
      return;
    }
    // A sampled value counts 1 / rate times: that too must stay a float64.
    if (shape.rate !== 1 && values.some((v) => !Number.isFinite(v / (shape as Shape).rate))) {
      this.sink.malformed(this.text(b, start, stop), `value "${raw}" / sample rate is not finite`);
      return;
    }
    const parts = raw.split(':');
    values.forEach((v, i) => {
      const part = parts[i] as string;
      const c = part.charCodeAt(0);
      const gauge = (shape as Shape).type === 'g';
      this.sink.sample(
        shape as Shape,
        v,
        gauge && (c === 43 || c === 45),
        gauge && !Number.isSafeInteger(v) ? (wholeNumber(part) ?? undefined) : undefined,
      );
    });
  }
}

interface Malformed {
  malformed: string;
}

interface Entry {
  h2: number;
  length: number;
  shape: Shape | Malformed;
}
