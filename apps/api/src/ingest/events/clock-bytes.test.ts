import { describe, expect, it } from 'vitest';
import type { DecodedClock } from '../../domain/event-records.ts';
import { BatchAssembler } from './batch-assembler.ts';
import { readClockBytes } from './clock-bytes.ts';
import { parseLine } from './event-stream.ts';
import { mutatedLines } from './line-fuzz.test-fixtures.ts';

/**
 * The line read from its bytes; undefined when passed on. The line sits between two others,
 * as in a body, so that reading past its end would show.
 */
function readClockLine(line: string): DecodedClock | undefined {
  const before = '{"type":"clock"}\n';
  const b = Buffer.from(`${before}${line}\n"offsetMs":1,"errorMs":2}`);
  const start = Buffer.byteLength(before);
  return readClockBytes(b, start, start + Buffer.byteLength(line));
}

const noSink = {
  useChange() {},
  observationBytes() {},
  observation() {},
};

/** What the general way (JSON.parse, the schema, the assembler) makes of the line; undefined when it refuses it. */
function general(line: string): DecodedClock | undefined {
  const batch = new BatchAssembler(noSink);
  try {
    batch.add(parseLine(line, 1), 1);
  } catch {
    return undefined;
  }
  return batch.clocks[0];
}

const at = '2026-02-01T10:00:00.123456Z';
const atUs = Date.parse('2026-02-01T10:00:00.123Z') * 1000 + 456;

describe('readClockBytes', () => {
  it('reads the common clock line, keys in any order', () => {
    const expected = { node: 'n-7', atUs, offsetUs: -3200, errorUs: 800 };
    expect(
      readClockLine(`{"type":"clock","node":"n-7","at":"${at}","offsetMs":-3.2,"errorMs":0.8}`),
    ).toEqual(expected);
    expect(
      readClockLine(`{"errorMs":0.8,"offsetMs":-3.2,"at":"${at}","node":"n-7","type":"clock"}`),
    ).toEqual(expected);
    // Every form of a JSON number, read as JSON.parse reads it.
    for (const [text, value] of [
      ['0', 0],
      ['-0', -0],
      ['12', 12],
      ['1.5e3', 1500],
      ['2E-3', 0.002],
      ['7e+2', 700],
      ['0.1', 0.1],
    ] as const) {
      const line = `{"type":"clock","node":"n","at":"${at}","offsetMs":${text},"errorMs":${text}}`;
      expect(readClockLine(line), line).toEqual({
        node: 'n',
        atUs,
        offsetUs: value * 1000,
        errorUs: value * 1000,
      });
      expect(readClockLine(line)).toEqual(general(line));
    }
  });

  it('reads the schema bounds as the schema does: 1e12 ms taken, past it passed on', () => {
    const line = (offset: string, error: string) =>
      `{"type":"clock","node":"n","at":"${at}","offsetMs":${offset},"errorMs":${error}}`;
    expect(readClockLine(line('-1e12', '1e12'))).toMatchObject({
      offsetUs: -1e15,
      errorUs: 1e15,
    });
    expect(readClockLine(line('1e12', '0'))).toMatchObject({ offsetUs: 1e15, errorUs: 0 });
    expect(readClockLine(line('1.0000001e12', '1'))).toBeUndefined();
    expect(readClockLine(line('-1.0000001e12', '1'))).toBeUndefined();
    expect(readClockLine(line('1', '-0.001'))).toBeUndefined();
    expect(readClockLine(line('1', '1e400'))).toBeUndefined();
    // The longest node the schema takes: 200 characters.
    const longest = 'n'.repeat(200);
    expect(
      readClockLine(`{"type":"clock","node":"${longest}","at":"${at}","offsetMs":1,"errorMs":1}`),
    ).toMatchObject({ node: longest });
  });

  it('passes on every line it cannot read exactly, for the general way to read or refuse', () => {
    const rest = `"at":"${at}","offsetMs":1,"errorMs":1`;
    const passed = [
      `{"type": "clock","node":"n",${rest}}`, // whitespace
      `{"type":"clock","node":"n\\u0031",${rest}}`, // an escape
      `{"type":"clock","node":"",${rest}}`, // empty node
      `{"type":"clock","node":"${'n'.repeat(201)}",${rest}}`,
      `{"type":"clock","node":"n","node":"m",${rest}}`, // twice
      `{"type":"clock","node":"n",${rest},"offsetMs":2}`,
      `{"type":"clock","node":"n",${rest},"errorMs":2}`,
      `{"type":"clock","type":"clock","node":"n",${rest}}`,
      `{"type":"clock","node":"n",${rest},"extra":"x"}`,
      `{"type":"clock","node":"n",${rest},"t1":"${at}"}`, // an exchange: the general way
      `{"type":"clock","node":"n","offsetMs":1,"errorMs":1}`, // no at
      `{"type":"clock","node":"n","at":"${at}","offsetMs":1}`, // no error
      `{"type":"clock","node":"n","at":"${at}","errorMs":1}`, // no offset
      `{"type":"clock","at":"${at}","offsetMs":1,"errorMs":1}`, // no node
      `{"node":"n",${rest}}`, // no type
      `{"type":"clocks","node":"n",${rest}}`,
      `{"type":"observation","node":"n",${rest}}`,
      `{"type":"clock","node":"n","at":"2026-02-01T10:00:00+01:00","offsetMs":1,"errorMs":1}`,
      `{"type":"clock","node":"n","at":"2026-02-30T10:00:00Z","offsetMs":1,"errorMs":1}`,
      `{"type":"clock","node":"n","at":"${at}","offsetMs":01,"errorMs":1}`, // leading zero
      `{"type":"clock","node":"n","at":"${at}","offsetMs":1.,"errorMs":1}`,
      `{"type":"clock","node":"n","at":"${at}","offsetMs":.5,"errorMs":1}`,
      `{"type":"clock","node":"n","at":"${at}","offsetMs":+1,"errorMs":1}`,
      `{"type":"clock","node":"n","at":"${at}","offsetMs":1e,"errorMs":1}`,
      `{"type":"clock","node":"n","at":"${at}","offsetMs":-,"errorMs":1}`,
      `{"type":"clock","node":"n","at":"${at}","offsetMs":"1","errorMs":1}`,
      `{"type":"clock","node":"n","at":"${at}","offsetMs":null,"errorMs":1}`,
      `{"type":"clock","node":"n","at":"${at}","offsetMs":NaN,"errorMs":1}`,
      `{"type":"clock","node":"n",${rest}}x`, // trailing
      `{"type":"clock","node":"n",${rest},}`,
      `{"type":"clock","node":"n",${rest}`, // no closing brace
      `{"type":"clock","node":"n","at":"${at}","offsetMs":1,"errorMs":1`, // cut in a number
      `{"type":"clock","node":"n\tq",${rest}}`, // raw tab
      `{"type":"clock","node":"né",${rest}}`, // not ASCII
      '{}',
      '',
    ];
    for (const line of passed) expect(readClockLine(line), line).toBeUndefined();
  });

  it('never reads a mutated line differently from JSON.parse, the schema and the assembler', () => {
    const base = `{"type":"clock","node":"n-1","at":"${at}","offsetMs":-12.5e-1,"errorMs":0.75}`;
    const alphabet = ['"', ',', ':', '{', '}', '\\', ' ', 'a', '1', '0', '-', '.', 'e', '+', 'é'];
    let read = 0;
    let passed = 0;
    for (const line of mutatedLines(base, alphabet, 20_000)) {
      const fast = readClockLine(line);
      if (fast === undefined) {
        passed++;
        continue;
      }
      read++;
      const slow = general(line);
      expect(fast, line).toEqual(slow);
      expect(Object.is(fast.offsetUs, slow?.offsetUs), line).toBe(true);
    }
    // The fuzz reaches lines the fast path reads, and lines it passes on.
    expect(read).toBeGreaterThan(100);
    expect(passed).toBeGreaterThan(100);
  });
});
