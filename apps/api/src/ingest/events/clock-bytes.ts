// The common clock report line read from the body's bytes, as observation-bytes.ts reads the
// common observation line: {"type":"clock","node":"n-1","at":"...Z","offsetMs":-3.2,"errorMs":0.8}
// without a string per line, JSON.parse or the schema validator. A batch with clock reports
// for 10,000 nodes holds 20,000 of them, and read the general way they cost a quarter of
// reading its 178,000 observations. It takes only a flat object without whitespace, the
// keys type, node, at, offsetMs and errorMs once each (an NTP exchange, t1..t4, goes the
// general way), a node of printable ASCII without quote or backslash within the schema's
// lengths, an `at` in the common UTC form, and numbers in JSON's grammar within the schema's
// bounds. Anything else is passed on to the general way (JSON.parse, then the schema), which
// also words every error: this path never accepts a line that one would refuse, nor reads
// one differently.
import { clockEvent } from '@meshbench/schema';
import type { z } from 'zod';
import type { DecodedClock } from '../../domain/event-records.ts';
import { parseUtcBytes } from '../timestamps.ts';
import { ascii, holds, stringEnd } from './observation-bytes.ts';

const QUOTE = 34;

/** A number field's bounds in the schema (both given there). */
function bounds(field: z.ZodOptional<z.ZodNumber>): { min: number; max: number } {
  const { minValue, maxValue } = field.unwrap();
  if (minValue === null || maxValue === null) throw new Error('the fast path needs bounds');
  return { min: minValue, max: maxValue };
}
const { shape } = clockEvent;
const OFFSET = bounds(shape.offsetMs);
const ERROR = bounds(shape.errorMs);
const NODE_MIN = shape.node.minLength ?? 0;
const NODE_MAX = shape.node.maxLength ?? 0;

const TYPE_KEY = ascii('type":"');
const CLOCK = ascii('clock"');
const NODE_KEY = ascii('node":"');
const AT_KEY = ascii('at":"');
const OFFSET_KEY = ascii('offsetMs":');
const ERROR_KEY = ascii('errorMs":');

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

/**
 * The clock report the line b[start, end) holds, as the general way decodes it; undefined,
 * having read nothing, for any line it does not read exactly.
 */
export function readClockBytes(b: Buffer, start: number, end: number): DecodedClock | undefined {
  if (b[start] !== 123 /* { */) return undefined;
  let typed = false;
  let node = -1;
  let nodeEnd = -1;
  let at = -1;
  let atEnd = -1;
  let offset = Number.NaN;
  let error = Number.NaN;
  let i = start + 1;
  for (;;) {
    if (b[i] !== QUOTE) return undefined;
    const k = i + 1;
    // The index of the value's last byte: a string's closing quote, a number's last digit.
    let valueEnd: number;
    switch (b[k]) {
      case 116 /* t */:
        if (typed || !holds(b, k, TYPE_KEY) || !holds(b, k + TYPE_KEY.length, CLOCK))
          return undefined;
        typed = true;
        valueEnd = k + TYPE_KEY.length + CLOCK.length - 1;
        break;
      case 110 /* n */:
        if (node !== -1 || !holds(b, k, NODE_KEY)) return undefined;
        node = k + NODE_KEY.length;
        nodeEnd = stringEnd(b, node, end);
        valueEnd = nodeEnd;
        break;
      case 97 /* a */:
        if (at !== -1 || !holds(b, k, AT_KEY)) return undefined;
        at = k + AT_KEY.length;
        atEnd = stringEnd(b, at, end);
        valueEnd = atEnd;
        break;
      case 111 /* o */:
        {
          if (!Number.isNaN(offset) || !holds(b, k, OFFSET_KEY)) return undefined;
          const from = k + OFFSET_KEY.length;
          const to = numberEnd(b, from, end);
          if (to < 0) return undefined;
          offset = Number(b.toString('latin1', from, to));
          valueEnd = to - 1;
          break;
        }
      case 101 /* e */:
        {
          if (!Number.isNaN(error) || !holds(b, k, ERROR_KEY)) return undefined;
          const from = k + ERROR_KEY.length;
          const to = numberEnd(b, from, end);
          if (to < 0) return undefined;
          error = Number(b.toString('latin1', from, to));
          valueEnd = to - 1;
          break;
        }
      default:
        return undefined; // another key (t1..t4 among them)
    }
    if (valueEnd < 0 || valueEnd >= end) return undefined;
    const next = b[valueEnd + 1];
    if (next === 125 /* } */) {
      if (valueEnd + 2 !== end) return undefined;
      break;
    }
    if (next !== 44 /* , */) return undefined;
    i = valueEnd + 2;
  }
  if (!typed || node === -1 || at === -1) return undefined;
  // Both bounds hold for neither a NaN (absent) nor a number beyond them (1e400 included).
  if (!(offset >= OFFSET.min && offset <= OFFSET.max)) return undefined;
  if (!(error >= ERROR.min && error <= ERROR.max)) return undefined;
  if (nodeEnd - node < NODE_MIN || nodeEnd - node > NODE_MAX) return undefined;
  const atUs = parseUtcBytes(b, at, atEnd);
  // Another form of RFC 3339, or an impossible date: the general way reads or words it.
  if (atUs === undefined || atUs === null) return undefined;
  return {
    node: b.toString('latin1', node, nodeEnd),
    atUs,
    offsetUs: offset * 1000,
    errorUs: error * 1000,
  };
}
