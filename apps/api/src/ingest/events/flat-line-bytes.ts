// The scanner under the fast readers of the common NDJSON lines (observation-bytes.ts,
// clock-bytes.ts): it finds where each value of a flat JSON object stands in the body's
// bytes, without a string per line or JSON.parse. It takes only an object without
// whitespace, {"key":value,...}, each key one its reader names and at most once, every text
// value printable ASCII without quote or backslash (so the value is exactly the bytes
// between its quotes, one character each, and needs no escaping for COPY) within its
// bounds, and every number in JSON's grammar. Any other line is not read (false), for the
// general way (JSON.parse, then the schema) to read or word its error; what a value means
// (a number's bounds, a time's form) is the reader's to check.
import type { z } from 'zod';

const QUOTE = 34;

/** What a key's value is: text, a JSON number, or the one string `is`. */
export type FlatValue =
  | { kind: 'text'; min: number; max: number }
  | { kind: 'number' }
  | { kind: 'is'; text: string };

export interface FlatKey {
  name: string;
  value: FlatValue;
  /** Whether a line without the key is not read (left to the general way). */
  required: boolean;
}

/**
 * A text key with the schema's bounds, in characters: on this path a character is one byte
 * (printable ASCII), so they bound the bytes between the quotes.
 */
export function textKey(
  name: string,
  field: z.ZodString | z.ZodOptional<z.ZodString>,
  required = !('unwrap' in field),
): FlatKey {
  const text = 'unwrap' in field ? field.unwrap() : field;
  if (text.maxLength === null) throw new Error('the fast path needs a bounded text field');
  return { name, value: { kind: 'text', min: text.minLength ?? 0, max: text.maxLength }, required };
}

/** A text key of any length, e.g. a time its reader parses from the bytes. */
export const anyTextKey = (name: string, required: boolean): FlatKey => ({
  name,
  value: { kind: 'text', min: 0, max: Number.POSITIVE_INFINITY },
  required,
});

/** Bytes that may stand in a value as they are: printable ASCII but quote and backslash. */
const PLAIN = new Uint8Array(256);
for (let c = 32; c < 127; c++) PLAIN[c] = c === QUOTE || c === 92 ? 0 : 1;

/** Index of the quote closing a string that opens at `from`; -1 if it needs the general way. */
function stringEnd(b: Uint8Array, from: number, end: number): number {
  let j = from;
  while (j < end && PLAIN[b[j] as number] === 1) j++;
  return j < end && b[j] === QUOTE ? j : -1;
}

const isDigit = (c: number | undefined) => c !== undefined && c >= 48 && c <= 57;

/** The index just past a JSON number that starts at `from`, or -1 if none starts there. */
function numberEnd(b: Uint8Array, from: number, end: number): number {
  let j = from;
  if (b[j] === 45 /* - */) j++;
  if (b[j] === 48 /* 0 */) j++;
  else if (isDigit(b[j])) while (j < end && isDigit(b[j])) j++;
  else return -1;
  if (b[j] === 46 /* . */) {
    j++;
    if (!isDigit(b[j])) return -1;
    while (j < end && isDigit(b[j])) j++;
  }
  if (b[j] === 101 /* e */ || b[j] === 69 /* E */) {
    j++;
    if (b[j] === 43 /* + */ || b[j] === 45 /* - */) j++;
    if (!isDigit(b[j])) return -1;
    while (j < end && isDigit(b[j])) j++;
  }
  return j < end ? j : -1;
}

/** Whether b[at..] holds `literal` (ASCII). */
function holds(b: Uint8Array, at: number, literal: Uint8Array): boolean {
  for (let k = 0; k < literal.length; k++) if (b[at + k] !== literal[k]) return false;
  return true;
}

const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

const TEXT = 0;
const NUMBER = 1;
const IS = 2;

/** One line shape: its keys, each read in one pass of its literal (`name":"` or `name":`). */
export class FlatLine {
  /** How long `read`'s `out` must be: two slots a key. */
  readonly slots: number;
  private readonly literal: Uint8Array[];
  private readonly kind: Uint8Array;
  /** Per key: the bytes of its one string with the closing quote (IS), else empty. */
  private readonly is: Uint8Array[];
  private readonly min: Float64Array;
  private readonly max: Float64Array;
  /** The first key whose name starts with a byte, and the next key after each: -1 none. */
  private readonly first = new Int8Array(256).fill(-1);
  private readonly next: Int8Array;
  /** A bit per key: the keys a line must have, and all of them. */
  private readonly required: number;
  private readonly all: number;

  constructor(private readonly keys: readonly FlatKey[]) {
    this.slots = keys.length * 2;
    this.literal = keys.map((k) =>
      ascii(k.value.kind === 'number' ? `${k.name}":` : `${k.name}":"`),
    );
    this.kind = Uint8Array.from(keys, (k) =>
      k.value.kind === 'text' ? TEXT : k.value.kind === 'number' ? NUMBER : IS,
    );
    this.is = keys.map((k) => ascii(k.value.kind === 'is' ? `${k.value.text}"` : ''));
    this.min = Float64Array.from(keys, (k) => (k.value.kind === 'text' ? k.value.min : 0));
    this.max = Float64Array.from(keys, (k) => (k.value.kind === 'text' ? k.value.max : 0));
    this.next = new Int8Array(keys.length).fill(-1);
    for (let key = keys.length - 1; key >= 0; key--) {
      const c = (keys[key] as FlatKey).name.charCodeAt(0);
      this.next[key] = this.first[c] as number;
      this.first[c] = key;
    }
    if (keys.length > 30) throw new Error('at most 30 keys: a bit each');
    this.required = keys.reduce((bits, k, key) => (k.required ? bits | (1 << key) : bits), 0);
    this.all = (1 << keys.length) - 1;
  }

  /** Where `read` puts the key's value: out[slot] its first byte, out[slot + 1] past its last. */
  slot(name: string): number {
    const key = this.keys.findIndex((k) => k.name === name);
    if (key < 0) throw new Error(`no key ${name}`);
    return key * 2;
  }

  /**
   * Reads the line b[start, end) into `out` (per key, see `slot`; -1 to -1 when absent) and
   * returns true; returns false, with `out` undefined, for any line it does not read exactly.
   */
  read(b: Uint8Array, start: number, end: number, out: Int32Array): boolean {
    if (b[start] !== 123 /* { */) return false;
    const { first, next, literal, kind, min, max } = this;
    let seen = 0; // a bit per key read
    let i = start + 1;
    for (;;) {
      if (b[i] !== QUOTE) return false;
      const k = i + 1;
      let key = first[b[k] as number] as number;
      while (key !== -1 && !holds(b, k, literal[key] as Uint8Array)) key = next[key] as number;
      if (key === -1) return false; // another key
      if ((seen & (1 << key)) !== 0) return false; // the key again
      seen |= 1 << key;
      const from = k + (literal[key] as Uint8Array).length;
      // The value's end (past its last character) and the index of its last byte (a
      // string's closing quote, a number's last digit).
      let to: number;
      let last: number;
      switch (kind[key]) {
        case TEXT:
          to = stringEnd(b, from, end);
          if (to < 0) return false;
          if (to - from < (min[key] as number) || to - from > (max[key] as number)) return false;
          last = to;
          break;
        case NUMBER:
          to = numberEnd(b, from, end);
          if (to < 0) return false;
          last = to - 1;
          break;
        default: {
          const is = this.is[key] as Uint8Array;
          if (!holds(b, from, is)) return false;
          to = from + is.length - 1;
          last = to;
        }
      }
      if (last >= end) return false;
      out[key * 2] = from;
      out[key * 2 + 1] = to;
      const after = b[last + 1];
      if (after === 125 /* } */) {
        if (last + 2 !== end) return false;
        break;
      }
      if (after !== 44 /* , */) return false;
      i = last + 2;
    }
    if ((seen & this.required) !== this.required) return false;
    if (seen !== this.all)
      for (let key = 0; key < kind.length; key++)
        if ((seen & (1 << key)) === 0) out[key * 2] = out[key * 2 + 1] = -1;
    return true;
  }
}
