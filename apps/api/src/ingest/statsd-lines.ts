// The StatsD / DogStatsD line protocol: `name:value[:value...]|type[|@rate][|#tags]
// [|T<unix s>][|c:<container>]`, several lines per datagram, events (`_e{`) and service
// checks (`_sc|`) recognised. A line is a *shape* (name, type and every section after the
// value) plus its value: shapes repeat from datagram to datagram, so each distinct one is
// decoded once and found again by a hash of its bytes; only the value is read per line.

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
  /** One value; `delta` marks a gauge written with a sign (+5 / -3), which adds to it. */
  sample(shape: Shape, value: number, delta: boolean): void;
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

/** The shape of a line from its name and everything from the `|` after the value on. */
export function parseShape(name: string, suffix: string): Shape | string {
  if (name === '') return 'no metric name';
  const sections = suffix.split('|');
  // sections[0] is the empty string before the first '|'.
  const type = TYPES[sections[1] ?? ''];
  if (!type) return `unknown type "${sections[1] ?? ''}"`;
  let rate = 1;
  let tags = '';
  let timestampMs = 0;
  let containerId = '';
  for (let i = 2; i < sections.length; i++) {
    const s = sections[i] as string;
    if (s.startsWith('@')) {
      rate = numeric(s.slice(1)) ? Number(s.slice(1)) : Number.NaN;
      if (!(rate > 0 && rate <= 1)) return `sample rate "${s.slice(1)}" is not in (0, 1]`;
    } else if (s.startsWith('#')) {
      tags = s.slice(1);
    } else if (s.startsWith('T')) {
      if (!/^\d{1,12}$/.test(s.slice(1)) || Number(s.slice(1)) <= 0) {
        return `timestamp "${s.slice(1)}" is not unix seconds`;
      }
      timestampMs = Number(s.slice(1)) * 1000;
    } else if (s.startsWith('c:')) {
      containerId = s.slice(2);
    }
    // Other sections (DogStatsD's e: external data, card: cardinality) are ignored on purpose.
  }
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

  private text(b: Uint8Array, from: number, to: number): string {
    return Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('utf8');
  }

  private line(b: Uint8Array, start: number, stop: number): void {
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
      const parsed = parseShape(this.text(b, start, colon), this.text(b, pipe, stop));
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
      this.sink.member(shape, this.text(b, colon + 1, pipe));
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
    const parts = raw.split(':');
    values.forEach((v, i) => {
      const c = (parts[i] as string).charCodeAt(0);
      this.sink.sample(shape as Shape, v, (shape as Shape).type === 'g' && (c === 43 || c === 45));
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
