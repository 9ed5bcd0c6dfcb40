import { describe, expect, it } from 'vitest';
import { mutatedLines } from './line-fuzz.test-fixtures.ts';
import {
  AT,
  CAUSE,
  CHANGE,
  FIELD_SLOTS,
  NODE,
  PROXY,
  readObservationBytes,
  STAGE,
} from './observation-bytes.ts';
import { checkEvent, isProblem } from './probe-events.ts';

/**
 * The line read from its bytes, as the event it stands for; undefined when passed on. The
 * line sits between two others, as in a body, so that reading past its end would show.
 */
function readObservationLine(line: string): unknown {
  const before = '{"type":"observation"}\n';
  const b = Buffer.from(`${before}${line}\n"proxy":"x","at":"y"}`);
  const start = Buffer.byteLength(before);
  const out = new Int32Array(FIELD_SLOTS);
  if (!readObservationBytes(b, start, start + Buffer.byteLength(line), out)) return undefined;
  const field = (slot: number) =>
    (out[slot] as number) < 0 ? undefined : b.toString('utf8', out[slot], out[slot + 1]);
  const event: Record<string, unknown> = {
    type: 'observation',
    change: field(CHANGE),
    proxy: field(PROXY),
    at: field(AT),
  };
  if (field(NODE) !== undefined) event.node = field(NODE);
  if (field(CAUSE) !== undefined) event.cause = field(CAUSE);
  if (field(STAGE) !== undefined) event.stage = field(STAGE);
  return event;
}

/** What the general path makes of a line: the event, or undefined when it refuses it. */
function general(line: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const checked = checkEvent(value);
  return isProblem(checked) ? undefined : checked;
}

/** The fast path may pass a line on, but never read it differently from the general one. */
function expectAgrees(line: string) {
  const fast = readObservationLine(line);
  if (fast !== undefined) expect(fast, line).toEqual(general(line));
}

const at = '2026-02-01T10:00:00.123456Z';

describe('readObservationBytes', () => {
  it('reads the common line, keys in any order, with node and cause', () => {
    expect(
      readObservationLine(`{"type":"observation","change":"c1","proxy":"p-1","at":"${at}"}`),
    ).toEqual({ type: 'observation', change: 'c1', proxy: 'p-1', at });
    expect(
      readObservationLine(
        `{"at":"${at}","cause":"reconnect","node":"n-7","proxy":"p-1","change":"c1","type":"observation"}`,
      ),
    ).toEqual({
      type: 'observation',
      change: 'c1',
      proxy: 'p-1',
      node: 'n-7',
      cause: 'reconnect',
      at,
    });
  });

  it('reads a stage, in any place among the keys', () => {
    expect(
      readObservationLine(
        `{"type":"observation","change":"c1","proxy":"p-1","stage":"received","at":"${at}"}`,
      ),
    ).toEqual({ type: 'observation', change: 'c1', proxy: 'p-1', stage: 'received', at });
    expect(
      readObservationLine(
        `{"stage":"serving","at":"${at}","cause":"x","proxy":"p-1","change":"c1","type":"observation"}`,
      ),
    ).toEqual({
      type: 'observation',
      change: 'c1',
      proxy: 'p-1',
      stage: 'serving',
      cause: 'x',
      at,
    });
    // The longest stage the schema takes: 100 characters.
    const longest = 's'.repeat(100);
    expect(
      readObservationLine(
        `{"type":"observation","change":"c1","proxy":"p","stage":"${longest}","at":"${at}"}`,
      ),
    ).toMatchObject({ stage: longest });
  });

  it('passes on every line it cannot read exactly, for the general path to read or refuse', () => {
    const passed = [
      `{"type": "observation","change":"c1","proxy":"p","at":"${at}"}`, // whitespace
      `{"type":"observation","change":"c\\u0031","proxy":"p","at":"${at}"}`, // an escape
      `{"type":"observation","change":"c1","proxy":"p","at":"${at}","attrs":{"k":1}}`,
      `{"type":"observation","change":"c1","proxy":"p","proxy":"q","at":"${at}"}`, // twice
      `{"type":"observation","change":"c1","proxy":"p","at":"${at}","extra":"x"}`,
      `{"type":"observation","change":"c1","proxy":"p"}`, // no at
      `{"type":"change","change":"c1","proxy":"p","at":"${at}"}`,
      `{"type":"observation","change":"","proxy":"p","at":"${at}"}`, // empty id
      `{"type":"observation","change":"c1","proxy":"${'p'.repeat(201)}","at":"${at}"}`,
      `{"type":"observation","change":"c1","proxy":"p","cause":"${'c'.repeat(101)}","at":"${at}"}`,
      `{"type":"observation","change":"c1","proxy":"p","stage":"","at":"${at}"}`, // empty stage
      `{"type":"observation","change":"c1","proxy":"p","stage":"${'s'.repeat(101)}","at":"${at}"}`,
      `{"type":"observation","change":"c1","proxy":"p","stage":"a","stage":"b","at":"${at}"}`,
      `{"type":"observation","change":"c1","proxy":"p","stage":1,"at":"${at}"}`,
      `{"type":"observation","change":"c1","proxy":"p","stag":"a","at":"${at}"}`,
      `{"type":"observation","change":"c1","proxy":"p","at":"${at}"}x`, // trailing
      `{"type":"observation","change":"c1","proxy":"p","at":"${at}",}`,
      `{"type":"observation","change":"c1","proxy":"p","at":1}`,
      `{"type":"observation","change":"c1","proxy":"p\tq","at":"${at}"}`, // raw tab
      `{"type":"observation","change":"c1","proxy":"pé","at":"${at}"}`, // not ASCII
      `{"type":"observation","change":"c1","proxy":"p\u007f","at":"${at}"}`, // DEL
      `{"type":"observatio","change":"c1","proxy":"p","at":"${at}"}`,
      `{"type":"observation","type":"observation","change":"c1","proxy":"p","at":"${at}"}`,
      `{"type":"observation","change":"c1","proxy":"p","at":"${at}"`, // no closing brace
      `{"type":"observation","change":"c1","proxy":"p","at":"${at}`, // cut in a value
      `{"type":"observation","change":"c1","proxy":"p","a`, // cut in a key
      '{}',
      '',
    ];
    for (const line of passed) expect(readObservationLine(line), line).toBeUndefined();
  });

  it('never reads a mutated line differently from JSON.parse and the schema', () => {
    const base = `{"type":"observation","change":"c1","proxy":"p-1","node":"n","cause":"x","stage":"s","at":"${at}"}`;
    const alphabet = ['"', ',', ':', '{', '}', '\\', ' ', 'a', '1', '\t', 'é', '[', ']'];
    let read = 0;
    for (const line of mutatedLines(base, alphabet, 20_000)) {
      if (readObservationLine(line) !== undefined) read++;
      expectAgrees(line);
    }
    expect(read).toBeGreaterThan(100); // the fuzz reaches lines the fast path reads
  });
});
