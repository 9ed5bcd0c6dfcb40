// The common observation line read without JSON.parse and the schema validator: most of a
// 178,000-line batch is lines like {"type":"observation","change":"c1","proxy":"p","at":"..."}.
// It takes only a flat object, no whitespace, every value a string free of escapes and
// control characters (so a value is exactly the characters between its quotes, and needs
// no escaping for COPY), the observation's own keys once each, and the schema's lengths.
// Anything else returns undefined and goes the general way (JSON.parse, then the schema),
// which also words every error: this path never accepts a line that one would refuse.
import type { ObservationEvent } from '@meshbench/schema';

const QUOTE = 34;

/** Index of the quote closing a string that opens before `from`; -1 if it needs JSON.parse. */
function stringEnd(line: string, from: number): number {
  for (let j = from; j < line.length; j++) {
    const c = line.charCodeAt(j);
    if (c === QUOTE) return j;
    if (c === 92 /* \ */ || c < 32) return -1;
  }
  return -1;
}

export function readObservationLine(line: string): ObservationEvent | undefined {
  if (line.charCodeAt(0) !== 123 /* { */) return undefined;
  let type: string | undefined;
  let change: string | undefined;
  let proxy: string | undefined;
  let node: string | undefined;
  let at: string | undefined;
  let cause: string | undefined;
  let i = 1;
  for (;;) {
    if (line.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = stringEnd(line, i + 1);
    if (keyEnd < 0) return undefined;
    if (line.charCodeAt(keyEnd + 1) !== 58 /* : */ || line.charCodeAt(keyEnd + 2) !== QUOTE)
      return undefined;
    const valueEnd = stringEnd(line, keyEnd + 3);
    if (valueEnd < 0) return undefined;
    const value = line.slice(keyEnd + 3, valueEnd);
    const keyLength = keyEnd - i - 1;
    const first = line.charCodeAt(i + 1);
    if (keyLength === 4 && first === 116 && type === undefined && line.startsWith('type', i + 1))
      type = value;
    else if (keyLength === 6 && change === undefined && line.startsWith('change', i + 1))
      change = value;
    else if (keyLength === 5 && proxy === undefined && line.startsWith('proxy', i + 1))
      proxy = value;
    else if (
      keyLength === 4 &&
      first === 110 &&
      node === undefined &&
      line.startsWith('node', i + 1)
    )
      node = value;
    else if (keyLength === 2 && at === undefined && line.startsWith('at', i + 1)) at = value;
    else if (keyLength === 5 && cause === undefined && line.startsWith('cause', i + 1))
      cause = value;
    else return undefined; // another key, or one given twice
    const next = line.charCodeAt(valueEnd + 1);
    if (next === 125 /* } */) {
      if (valueEnd + 2 !== line.length) return undefined;
      break;
    }
    if (next !== 44 /* , */) return undefined;
    i = valueEnd + 2;
  }
  if (type !== 'observation' || change === undefined || proxy === undefined || at === undefined)
    return undefined;
  if (change.length < 1 || change.length > 200 || proxy.length < 1 || proxy.length > 200)
    return undefined;
  if ((node !== undefined && node.length > 200) || (cause !== undefined && cause.length > 100))
    return undefined;
  const event: ObservationEvent = { type: 'observation', change, proxy, at };
  if (node !== undefined) event.node = node;
  if (cause !== undefined) event.cause = cause;
  return event;
}
