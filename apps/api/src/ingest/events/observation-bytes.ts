// The common observation line read from the body's bytes, without decoding it to a string,
// JSON.parse or the schema validator: most of a 178,000-line batch is lines like
// {"type":"observation","change":"c1","proxy":"p","at":"..."}.
// It takes what flat-line-bytes.ts reads (a flat object without whitespace, plain ASCII
// text), the observation's own keys once each, and the schema's lengths. Anything else is
// passed on to the general way (JSON.parse, then the schema), which also words every error:
// this path never accepts a line that one would refuse, nor reads one differently.
import { observationEvent } from '@meshbench/schema';
import { anyTextKey, FlatLine, textKey } from './flat-line-bytes.ts';

const { shape } = observationEvent;
const LINE = new FlatLine([
  textKey('change', shape.change),
  textKey('proxy', shape.proxy),
  textKey('node', shape.node),
  // batch-assembler.ts reads the time, or passes the line on.
  anyTextKey('at', true),
  textKey('cause', shape.cause),
  textKey('stage', shape.stage),
  { name: 'type', value: { kind: 'is', text: 'observation' }, required: true },
]);

/** Where `readObservationBytes` puts each field: start and end offsets, -1 when absent. */
export const CHANGE = LINE.slot('change');
export const PROXY = LINE.slot('proxy');
export const NODE = LINE.slot('node');
export const AT = LINE.slot('at');
export const CAUSE = LINE.slot('cause');
export const STAGE = LINE.slot('stage');
export const FIELD_SLOTS = LINE.slots;

/**
 * Reads the line b[start, end) into `out` (offsets per field, see CHANGE...STAGE) and
 * returns true; returns false, with `out` undefined, for any line it does not read exactly.
 */
export function readObservationBytes(
  b: Uint8Array,
  start: number,
  end: number,
  out: Int32Array,
): boolean {
  return LINE.read(b, start, end, out);
}
