// The common observation line read from the body's bytes, without decoding it to a string,
// JSON.parse or the schema validator: most of a 178,000-line batch is lines like
// {"type":"observation","change":"c1","proxy":"p","at":"..."}.
// It takes only a flat object, no whitespace, every value a string of printable ASCII
// without quote or backslash (so a value is exactly the bytes between its quotes, one
// character each, and needs no escaping for COPY), the observation's own keys once each,
// and the schema's lengths. Anything else is passed on to the general way (JSON.parse, then
// the schema), which also words every error: this path never accepts a line that one
// would refuse, nor reads one differently.
import { observationEvent } from '@meshbench/schema';
import type { z } from 'zod';

const QUOTE = 34;

/**
 * A text field's bounds in the schema, in characters: on this path a character is one
 * byte (printable ASCII), so they bound the bytes between the quotes.
 */
function bounds(field: z.ZodString | z.ZodOptional<z.ZodString>): { min: number; max: number } {
  const text = 'unwrap' in field ? field.unwrap() : field;
  if (text.maxLength === null) throw new Error('the fast path needs a bounded text field');
  return { min: text.minLength ?? 0, max: text.maxLength };
}
const { shape } = observationEvent;
const CHANGE_LENGTH = bounds(shape.change);
const PROXY_LENGTH = bounds(shape.proxy);
const NODE_LENGTH = bounds(shape.node);
const CAUSE_LENGTH = bounds(shape.cause);
const STAGE_LENGTH = bounds(shape.stage);

/** Where `readObservationBytes` puts each field: start and end offsets, -1 when absent. */
export const CHANGE = 0;
export const PROXY = 2;
export const NODE = 4;
export const AT = 6;
export const CAUSE = 8;
export const STAGE = 10;
export const FIELD_SLOTS = 12;

/** Bytes that may stand in a value as they are: printable ASCII but quote and backslash. */
const PLAIN = new Uint8Array(256);
for (let c = 32; c < 127; c++) PLAIN[c] = c === QUOTE || c === 92 ? 0 : 1;

/** Index of the quote closing a string that opens at `from`; -1 if it needs the general way. */
export function stringEnd(b: Uint8Array, from: number, end: number): number {
  let j = from;
  while (j < end && PLAIN[b[j] as number] === 1) j++;
  return j < end && b[j] === QUOTE ? j : -1;
}

/**
 * Whether b[at..] holds `literal` (ASCII); the literals are each key with its closing
 * quote, colon and the value's opening quote, so a key is read in one pass.
 */
export function holds(b: Uint8Array, at: number, literal: Uint8Array): boolean {
  for (let k = 0; k < literal.length; k++) if (b[at + k] !== literal[k]) return false;
  return true;
}

export const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const TYPE_KEY = ascii('type":"');
const CHANGE_KEY = ascii('change":"');
const CAUSE_KEY = ascii('cause":"');
const PROXY_KEY = ascii('proxy":"');
const NODE_KEY = ascii('node":"');
const AT_KEY = ascii('at":"');
const STAGE_KEY = ascii('stage":"');
const OBSERVATION = ascii('observation"');

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
  if (b[start] !== 123 /* { */) return false;
  let typed = false;
  let change = -1;
  let proxy = -1;
  let node = -1;
  let at = -1;
  let cause = -1;
  let stage = -1;
  let changeEnd = -1;
  let proxyEnd = -1;
  let nodeEnd = -1;
  let atEnd = -1;
  let causeEnd = -1;
  let stageEnd = -1;
  let i = start + 1;
  for (;;) {
    if (b[i] !== QUOTE) return false;
    const k = i + 1;
    let valueStart: number;
    let valueEnd: number;
    switch (b[k]) {
      case 116 /* t */:
        if (typed || !holds(b, k, TYPE_KEY) || !holds(b, k + TYPE_KEY.length, OBSERVATION))
          return false;
        typed = true;
        valueEnd = k + TYPE_KEY.length + OBSERVATION.length - 1;
        break;
      case 99 /* c */:
        if (b[k + 1] === 104 /* h */) {
          if (change !== -1 || !holds(b, k, CHANGE_KEY)) return false;
          valueStart = k + CHANGE_KEY.length;
          valueEnd = stringEnd(b, valueStart, end);
          change = valueStart;
          changeEnd = valueEnd;
        } else {
          if (cause !== -1 || !holds(b, k, CAUSE_KEY)) return false;
          valueStart = k + CAUSE_KEY.length;
          valueEnd = stringEnd(b, valueStart, end);
          cause = valueStart;
          causeEnd = valueEnd;
        }
        break;
      case 112 /* p */:
        if (proxy !== -1 || !holds(b, k, PROXY_KEY)) return false;
        valueStart = k + PROXY_KEY.length;
        valueEnd = stringEnd(b, valueStart, end);
        proxy = valueStart;
        proxyEnd = valueEnd;
        break;
      case 110 /* n */:
        if (node !== -1 || !holds(b, k, NODE_KEY)) return false;
        valueStart = k + NODE_KEY.length;
        valueEnd = stringEnd(b, valueStart, end);
        node = valueStart;
        nodeEnd = valueEnd;
        break;
      case 97 /* a */:
        if (at !== -1 || !holds(b, k, AT_KEY)) return false;
        valueStart = k + AT_KEY.length;
        valueEnd = stringEnd(b, valueStart, end);
        at = valueStart;
        atEnd = valueEnd;
        break;
      case 115 /* s */:
        if (stage !== -1 || !holds(b, k, STAGE_KEY)) return false;
        valueStart = k + STAGE_KEY.length;
        valueEnd = stringEnd(b, valueStart, end);
        stage = valueStart;
        stageEnd = valueEnd;
        break;
      default:
        return false; // another key
    }
    if (valueEnd < 0 || valueEnd >= end) return false;
    const next = b[valueEnd + 1];
    if (next === 125 /* } */) {
      if (valueEnd + 2 !== end) return false;
      break;
    }
    if (next !== 44 /* , */) return false;
    i = valueEnd + 2;
  }
  if (!typed || change === -1 || proxy === -1 || at === -1) return false;
  const changeLength = changeEnd - change;
  const proxyLength = proxyEnd - proxy;
  if (changeLength < CHANGE_LENGTH.min || changeLength > CHANGE_LENGTH.max) return false;
  if (proxyLength < PROXY_LENGTH.min || proxyLength > PROXY_LENGTH.max) return false;
  // An absent node or cause is -1 to -1: length 0, which no minimum refuses for a field
  // the schema lets be absent.
  if (node !== -1 && (nodeEnd - node < NODE_LENGTH.min || nodeEnd - node > NODE_LENGTH.max))
    return false;
  if (cause !== -1 && (causeEnd - cause < CAUSE_LENGTH.min || causeEnd - cause > CAUSE_LENGTH.max))
    return false;
  if (stage !== -1 && (stageEnd - stage < STAGE_LENGTH.min || stageEnd - stage > STAGE_LENGTH.max))
    return false;
  out[CHANGE] = change;
  out[CHANGE + 1] = changeEnd;
  out[PROXY] = proxy;
  out[PROXY + 1] = proxyEnd;
  out[NODE] = node;
  out[NODE + 1] = nodeEnd;
  out[AT] = at;
  out[AT + 1] = atEnd;
  out[CAUSE] = cause;
  out[CAUSE + 1] = causeEnd;
  out[STAGE] = stage;
  out[STAGE + 1] = stageEnd;
  return true;
}
