// The reader's fast path (shapes found by hash, plain decimals read by hand, UTF-8 checked
// once per shape) against an obviously-right slow path (each line decoded and split as
// text, parseShape and parseValues on every line), over a seeded fuzz of mutated datagrams
// in every dialect: both must say the same of every line.
import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import {
  parseShape,
  parseValues,
  type Shape,
  STATSD_LIMITS,
  StatsdReader,
  type StatsdSink,
} from './statsd-lines.ts';

type Seen =
  | ['sample', string, string, number, boolean, number, string, number, string]
  | ['member', string, string, string]
  | ['event' | 'check', string]
  | ['malformed'];

function sinkInto(out: Seen[]): StatsdSink {
  const id = (s: Shape) => [s.name, s.type] as const;
  return {
    sample: (s, v, delta) =>
      out.push(['sample', ...id(s), v, delta, s.rate, s.tags, s.timestampMs, s.containerId]),
    member: (s, m) => out.push(['member', ...id(s), m]),
    event: (l) => out.push(['event', l]),
    serviceCheck: (l) => out.push(['check', l]),
    malformed: () => out.push(['malformed']),
  };
}

/** The slow path: one line at a time, as text. */
function slow(datagram: Buffer): Seen[] {
  const out: Seen[] = [];
  const sink = sinkInto(out);
  let start = 0;
  while (start < datagram.length) {
    let end = datagram.indexOf(10, start);
    if (end < 0) end = datagram.length;
    let line = datagram.subarray(start, end);
    if (line.length > 0 && line[line.length - 1] === 13) line = line.subarray(0, -1);
    start = end + 1;
    if (line.length === 0) continue;
    if (line.length > STATSD_LIMITS.lineBytes) {
      sink.malformed('', '');
      continue;
    }
    const text = line.toString('utf8');
    if (text.startsWith('_e{')) {
      sink.event(text);
      continue;
    }
    if (text.startsWith('_sc|')) {
      sink.serviceCheck(text);
      continue;
    }
    const colon = line.indexOf(58);
    const pipe = colon < 0 ? -1 : line.indexOf(124, colon);
    if (colon < 0 || pipe < 0) {
      sink.malformed('', '');
      continue;
    }
    const bucket = line.subarray(0, colon);
    const suffix = line.subarray(pipe);
    if (!isUtf8(bucket) || !isUtf8(suffix)) {
      sink.malformed('', '');
      continue;
    }
    const shape = parseShape(bucket.toString('utf8'), suffix.toString('utf8'));
    if (typeof shape === 'string') {
      sink.malformed('', '');
      continue;
    }
    const rawBytes = line.subarray(colon + 1, pipe);
    if (shape.type === 's') {
      if (
        rawBytes.length > STATSD_LIMITS.memberBytes ||
        rawBytes.includes(0) ||
        !isUtf8(rawBytes)
      ) {
        sink.malformed('', '');
      } else sink.member(shape, rawBytes.toString('utf8'));
      continue;
    }
    const raw = rawBytes.toString('utf8');
    const values = parseValues(raw);
    if (!values || (shape.rate !== 1 && values.some((v) => !Number.isFinite(v / shape.rate)))) {
      sink.malformed('', '');
      continue;
    }
    const parts = raw.split(':');
    values.forEach((v, i) => {
      const c = (parts[i] as string)[0];
      sink.sample(shape, v, shape.type === 'g' && (c === '+' || c === '-'));
    });
  }
  return out;
}

const CORPUS = [
  'consul.xds.pushes:1|c|#run:r1,node:n1',
  'consul.rpc:2|c|@0.5|#env:ci',
  'cpu.pct:+4.5|g',
  'cpu.pct:-3|g|#run:r1',
  'lat:1:2.5:3e2|d|#a:b',
  'lat.ms:12.25|ms|@0.1|T1770000000|c:abc',
  'hist:7|h',
  'users:alice|s|#run:r1',
  'xds.pushes,run=r1,mesh=consul:3|c',
  'cpu.idle,host=localhost,region=west:1|g|#host:other',
  'm,k=a=b,bare:1|ms',
  '_e{5,4}:title|text|#env:prod',
  '_sc|consul.up|0',
  'caf\u00e9.\u{1f680}:1|c|#k:\u00fc',
];
const PIECES = [
  [0x00],
  [0xff],
  [0xed, 0xa0, 0x80],
  [0xc3],
  [0xc3, 0xa9],
  ...[
    ',',
    '=',
    ':',
    '|',
    '#',
    '@',
    '\n',
    '\r',
    '.',
    'e',
    '-',
    '+',
    '0',
    '9',
    'T',
    'c:',
    's',
    'g',
  ].map((c) => [...Buffer.from(c)]),
];

/** mulberry32: a seeded generator, so a failure can be replayed. */
function prng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('StatsdReader against the line-by-line slow path', () => {
  it('says the same of 20,000 mutated datagrams', () => {
    const random = prng(20261125);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
    const fastOut: Seen[] = [];
    // One reader for all: shapes decoded for earlier datagrams are found again.
    const reader = new StatsdReader(sinkInto(fastOut));
    let malformed = 0;
    let samples = 0;
    for (let i = 0; i < 20_000; i++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(CORPUS));
      const bytes = [...Buffer.from(lines.join('\n'))];
      const mutations = Math.floor(random() * 4);
      for (let m = 0; m < mutations; m++) {
        const at = Math.floor(random() * (bytes.length + 1));
        const what = random();
        if (what < 0.6) bytes.splice(at, 0, ...pick(PIECES));
        else if (what < 0.85) bytes.splice(at, 1 + Math.floor(random() * 3));
        else bytes.splice(at, 0, ...bytes.slice(0, Math.floor(random() * 8)));
      }
      const datagram = Buffer.from(bytes);
      fastOut.length = 0;
      reader.read(datagram);
      const expected = slow(datagram);
      if (JSON.stringify(fastOut) !== JSON.stringify(expected)) {
        expect({ datagram: datagram.toString('hex'), got: fastOut }).toEqual({
          datagram: datagram.toString('hex'),
          got: expected,
        });
      }
      for (const s of expected) {
        if (s[0] === 'malformed') malformed++;
        else samples++;
      }
    }
    // The fuzz reaches both outcomes, in numbers.
    expect(malformed).toBeGreaterThan(5000);
    expect(samples).toBeGreaterThan(5000);
  });
});
