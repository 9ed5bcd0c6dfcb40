// The common clock report line read from the body's bytes, as observation-bytes.ts reads the
// common observation line: {"type":"clock","node":"n-1","at":"...Z","offsetMs":-3.2,"errorMs":0.8}
// without a string per line, JSON.parse or the schema validator. A batch with clock reports
// for 10,000 nodes holds 20,000 of them, and read the general way they cost a quarter of
// reading its 178,000 observations. It takes what flat-line-bytes.ts reads (a flat object
// without whitespace, plain ASCII text), the keys type, node, at, offsetMs and errorMs once
// each (an NTP exchange, t1..t4, goes the general way), a node within the schema's lengths,
// an `at` in the common UTC form, and numbers within the schema's bounds. Anything else is
// passed on to the general way (JSON.parse, then the schema), which also words every error:
// this path never accepts a line that one would refuse, nor reads one differently.
import { clockEvent } from '@meshbench/schema';
import type { z } from 'zod';
import type { DecodedClock } from '../../domain/event-records.ts';
import { parseUtcBytes } from '../timestamps.ts';
import { anyTextKey, FlatLine, textKey } from './flat-line-bytes.ts';

/** A number field's bounds in the schema (both given there). */
function bounds(field: z.ZodOptional<z.ZodNumber>): { min: number; max: number } {
  const { minValue, maxValue } = field.unwrap();
  if (minValue === null || maxValue === null) throw new Error('the fast path needs bounds');
  return { min: minValue, max: maxValue };
}
const { shape } = clockEvent;
const OFFSET = bounds(shape.offsetMs);
const ERROR = bounds(shape.errorMs);

const LINE = new FlatLine([
  { name: 'type', value: { kind: 'is', text: 'clock' }, required: true },
  textKey('node', shape.node),
  anyTextKey('at', true),
  { name: 'offsetMs', value: { kind: 'number' }, required: true },
  { name: 'errorMs', value: { kind: 'number' }, required: true },
]);
const NODE_SLOT = LINE.slot('node');
const AT_SLOT = LINE.slot('at');
const OFFSET_SLOT = LINE.slot('offsetMs');
const ERROR_SLOT = LINE.slot('errorMs');
const fields = new Int32Array(LINE.slots);

/**
 * The clock report the line b[start, end) holds, as the general way decodes it; undefined,
 * having read nothing, for any line it does not read exactly.
 */
export function readClockBytes(b: Buffer, start: number, end: number): DecodedClock | undefined {
  const f = fields;
  if (!LINE.read(b, start, end, f)) return undefined;
  const offset = Number(b.toString('latin1', f[OFFSET_SLOT], f[OFFSET_SLOT + 1]));
  const error = Number(b.toString('latin1', f[ERROR_SLOT], f[ERROR_SLOT + 1]));
  // Neither bound holds for a number beyond them (1e400 included).
  if (!(offset >= OFFSET.min && offset <= OFFSET.max)) return undefined;
  if (!(error >= ERROR.min && error <= ERROR.max)) return undefined;
  const atUs = parseUtcBytes(b, f[AT_SLOT] as number, f[AT_SLOT + 1] as number);
  // Another form of RFC 3339, or an impossible date: the general way reads or words it.
  if (atUs === undefined || atUs === null) return undefined;
  return {
    node: b.toString('latin1', f[NODE_SLOT], f[NODE_SLOT + 1]),
    atUs,
    offsetUs: offset * 1000,
    errorUs: error * 1000,
  };
}
