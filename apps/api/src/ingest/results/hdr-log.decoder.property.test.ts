// Generated interval logs, written line by line as HistogramLogWriter lays them out (format 1.3:
// StartTime/BaseTime comments, the legend, [Tag=...,]start,length,max,base64), against what
// each line says: the steps its Tags name, each interval's start, length and count, and its
// min and max as the reference histogram's bucket bounds in the unit its Interval_Max implies.
import fc from 'fast-check';
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { decodeHdrLog, looksLikeHdrLog } from './hdr-log.decoder.ts';
import { ResultFileError } from './result-file-error.ts';

const LEGEND = '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"';
/** 2026-11-26T12:00:00Z in seconds. */
const START_S = 1_795_694_400;
const PER_MS = { ms: 1, us: 1000, ns: 1_000_000 } as const;
type Unit = keyof typeof PER_MS;

interface Bounds {
  lowestEquivalentValue(v: number): number;
  highestEquivalentValue(v: number): number;
}

function histogram(values: number[]) {
  const h = build({ bitBucketSize: 64, numberOfSignificantValueDigits: 3 });
  for (const v of values) h.recordValue(v);
  return {
    b64: encodeIntoCompressedBase64(h),
    min: (h as unknown as Bounds).lowestEquivalentValue(Math.min(...values)),
    max: (h as unknown as Bounds).highestEquivalentValue(Math.max(...values)),
  };
}

const step = fc.record({
  mode: fc.constantFrom('open', 'closed'),
  connections: fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined }),
  targetRps: fc.option(fc.constantFrom(0, 100, 2500.5), { nil: undefined }),
  generator: fc.option(fc.constantFrom('g1', 'g2'), { nil: undefined }),
});
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

const tagOf = (s: Step) =>
  [
    `mode:${s.mode}`,
    s.connections !== undefined ? `connections:${s.connections}` : '',
    s.targetRps !== undefined ? `targetRps:${s.targetRps}` : '',
    s.generator !== undefined ? `generator:${s.generator}` : '',
  ]
    .filter(Boolean)
    .join(';');

const line = fc.record({
  step: fc.nat({ max: 2 }),
  /** Values in the log's unit, at least 1 ms worth so Interval_Max (ms) is >= 0.01. */
  values: fc.array(fc.integer({ min: 20, max: 2_000 }), { minLength: 1, maxLength: 30 }),
  gapMs: fc.integer({ min: 1, max: 5_000 }),
  lengthMs: fc.integer({ min: 1, max: 10_000 }),
});

describe('an interval log, generated', () => {
  it('decodes to one result per step, each interval as its line says', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 3, maxLength: 3 }),
        fc.array(line, { minLength: 1, maxLength: 12 }),
        fc.constantFrom<Unit>('ms', 'us', 'ns'),
        fc.constantFrom('relative', 'absolute', 'base' as const),
        fc.boolean(),
        (steps, lines, unit, times, crlf) => {
          // The unit scales the recorded values: ms values x 1, us x 1000, ns x 1e6 of a ms.
          const scale = PER_MS[unit] / 1000;
          const out = ['#[Histogram log format version 1.3]'];
          const baseS = START_S;
          if (times !== 'absolute') out.push(`#[StartTime: ${baseS}.000 (seconds since epoch)]`);
          if (times === 'base') out.push(`#[BaseTime: ${baseS}.000 (seconds since epoch)]`);
          out.push(LEGEND);
          let atMs = 0;
          const want = new Map<
            string,
            {
              step: Step;
              intervals: {
                startMs: number;
                durationMs: number;
                count: number;
                minMs: number;
                maxMs: number;
              }[];
            }
          >();
          for (const l of lines) {
            atMs += l.gapMs;
            const values = l.values.map((v) => Math.max(1, Math.round(v * scale)));
            const h = histogram(values);
            const s = steps[l.step] as Step;
            const startS = (times === 'absolute' ? baseS : 0) + atMs / 1000;
            // Interval_Max in ms, as both writers write it (3 decimals).
            const maxMs = (h.max / PER_MS[unit]).toFixed(3);
            out.push(
              `Tag=${tagOf(s)},${startS.toFixed(3)},${(l.lengthMs / 1000).toFixed(3)},${maxMs},${h.b64}`,
            );
            const key = tagOf(s);
            const entry = want.get(key) ?? { step: s, intervals: [] };
            want.set(key, entry);
            entry.intervals.push({
              startMs: baseS * 1000 + atMs,
              durationMs: l.lengthMs,
              count: values.length,
              minMs: h.min / PER_MS[unit],
              maxMs: h.max / PER_MS[unit],
            });
          }
          const text = out.join(crlf ? '\r\n' : '\n');
          expect(looksLikeHdrLog(text)).toBe(true);
          const d = decodeHdrLog(text);
          expect(d.format).toBe('hdr-log');
          expect(d.unmapped).toEqual([]);
          expect(d.results).toHaveLength(want.size);
          const wanted = [...want];
          d.results.forEach((r, k) => {
            const [tag, w] = wanted[k] as (typeof wanted)[number];
            expect(r.mode).toBe(w.step.mode);
            expect(r.connections).toBe(w.step.connections ?? null);
            expect(r.targetRps).toBe(w.step.targetRps ?? null);
            expect(r.generator).toBe(w.step.generator ?? null);
            expect(r.labels).toEqual({ tag });
            expect(r.generatorCpu).toBeNull();
            expect(r.hdrUnit).toBe(unit);
            expect(r.intervals.map(({ hdr: _, errors: __, ...rest }) => rest)).toEqual(
              w.intervals.map((i) => ({
                ...i,
                startMs: expect.closeTo(i.startMs, 3),
                durationMs: expect.closeTo(i.durationMs, 6),
              })),
            );
            for (const i of r.intervals) expect(i.errors).toBeNull();
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});

/** One interval line of 3 values of 1, 2 and 3 ms recorded in us. */
const H = histogram([1000, 2000, 3000]);
const lineOf = (start = '1.000', length = '1.000', max = '3.001') =>
  `${start},${length},${max},${H.b64}`;
const logOf = (...body: string[]) =>
  [`#[StartTime: ${START_S}.000 (seconds since epoch)]`, ...body].join('\n');

function refusal(text: string, defaults = {}) {
  try {
    decodeHdrLog(text, defaults);
  } catch (e) {
    if (e instanceof ResultFileError)
      return { problem: e.problem, field: e.field, line: e.line, message: e.message };
    throw e;
  }
  throw new Error('not refused');
}

describe('what the query says for what the lines do not', () => {
  it('an untagged line takes the mode, connections, rate, generator, cpu and unit of the query', () => {
    const d = decodeHdrLog(logOf(lineOf()), {
      mode: 'closed',
      connections: 8,
      targetRps: 50,
      generator: 'gen',
      generatorCpu: 0.5,
      unit: 'ms',
    });
    expect(d.results).toEqual([
      expect.objectContaining({
        mode: 'closed',
        connections: 8,
        targetRps: 50,
        generator: 'gen',
        generatorCpu: 0.5,
        hdrUnit: 'ms',
        labels: {},
      }),
    ]);
    // In ms, the 1,000-3,000 values are seconds' worth of ms.
    expect(d.results[0]?.intervals[0]?.minMs).toBe(H.min);
  });

  it('without a query, the mode is unspecified and the rest unknown', () => {
    const [r] = decodeHdrLog(logOf(lineOf())).results;
    expect(r).toMatchObject({
      mode: 'unspecified',
      connections: null,
      targetRps: null,
      generator: null,
    });
    // The unit from Interval_Max: 3,000-ish values and 3.001 ms read as microseconds.
    expect(r?.hdrUnit).toBe('us');
    expect(r?.intervals[0]?.maxMs).toBe(H.max / 1000);
  });

  it('a bare Tag is the mode; a Tag pair overrides the query, the rest of the query stays', () => {
    const d = decodeHdrLog(
      logOf(
        `Tag=warmup,${lineOf('1.000')}`,
        `Tag=connections:4;generator:${'x'.repeat(250)},${lineOf('2.000')}`,
      ),
      { mode: 'open', connections: 9, targetRps: 7 },
    );
    expect(
      d.results.map((r) => [r.mode, r.connections, r.targetRps, r.generator?.length ?? null]),
    ).toEqual([
      ['warmup', 9, 7, null],
      ['open', 4, 7, 200],
    ]);
    expect(d.results[0]?.labels).toEqual({ tag: 'warmup' });
  });

  it('an empty Tag is no tag', () => {
    const [r] = decodeHdrLog(logOf(`Tag=,${lineOf()}`), { mode: 'open' }).results;
    expect(r).toMatchObject({ mode: 'open', labels: {} });
  });

  it('no unit can be told from a max under 0.01 ms: microseconds', () => {
    const [r] = decodeHdrLog(logOf(lineOf('1.000', '1.000', '0.009'))).results;
    expect(r?.hdrUnit).toBe('us');
  });

  it('the unit is the one whose max reads as Interval_Max, nearest power of 1000', () => {
    // A bucket top of 30,015 against 0.030 ms: ns (ratio 1e6). 3,001 against 3,001 ms and
    // 30,000 ms: ms (ratios 1 and 0.1).
    const ns = histogram([30_000]);
    expect(ns.max).toBe(30_015);
    expect(decodeHdrLog(logOf(`1,1,0.030,${ns.b64}`)).results[0]?.hdrUnit).toBe('ns');
    expect(decodeHdrLog(logOf(`1,1,0.010,${ns.b64}`)).results[0]?.hdrUnit).toBe('ns');
    expect(decodeHdrLog(logOf(lineOf('1', '1', '3001'))).results[0]?.hdrUnit).toBe('ms');
    expect(decodeHdrLog(logOf(lineOf('1', '1', '30000'))).results[0]?.hdrUnit).toBe('ms');
    // Ratio 10^4.4 rounds to 10^3 (us), 10^4.6 to 10^6 (ns).
    expect(
      decodeHdrLog(logOf(lineOf('1', '1', String(3001 / 10 ** 4.4)))).results[0]?.hdrUnit,
    ).toBe('us');
    expect(
      decodeHdrLog(logOf(lineOf('1', '1', String(3001 / 10 ** 4.6)))).results[0]?.hdrUnit,
    ).toBe('ns');
  });

  it('relative starts are placed at StartTime; starts less than a year before it are absolute', () => {
    const relative = decodeHdrLog(logOf(lineOf('2.5')));
    expect(relative.results[0]?.intervals[0]?.startMs).toBe((START_S + 2.5) * 1000);
    const absolute = decodeHdrLog(logOf(lineOf(String(START_S - 364 * 86400))));
    expect(absolute.results[0]?.intervals[0]?.startMs).toBe((START_S - 364 * 86400) * 1000);
    // A BaseTime places them whatever their size.
    const based = decodeHdrLog(`#[BaseTime: 100000000]\n${lineOf('7')}`);
    expect(based.results[0]?.intervals[0]?.startMs).toBe(100_000_007 * 1000);
  });

  it('skips comments, the legend and blank lines', () => {
    const d = decodeHdrLog(logOf('# a comment', LEGEND, '', '   ', lineOf()));
    expect(d.results[0]?.intervals).toHaveLength(1);
  });
});

describe('refusals name the line, the field and the problem', () => {
  it.each([
    ['StartTime', `#[StartTime: soon]\n${lineOf()}`, 1, 'StartTime', /StartTime is not a number/],
    ['BaseTime', `#[BaseTime: x]\n${lineOf()}`, 1, 'BaseTime', /BaseTime is not a number/],
    [
      'a negative start',
      logOf(lineOf('-1')),
      2,
      'StartTimestamp',
      /StartTimestamp "-1" is not a non-negative number/,
    ],
    [
      'a length that is no number',
      logOf(lineOf('1', 'x')),
      2,
      'Interval_Length',
      /Interval_Length "x"/,
    ],
    [
      'a max that is no number',
      logOf(lineOf('1', '1', '1e')),
      2,
      'Interval_Max',
      /Interval_Max "1e"/,
    ],
    [
      'a zero length',
      logOf(lineOf('1', '0')),
      2,
      'Interval_Length',
      /more than 0 and at most 1000000000 s/,
    ],
    ['a length past 1e12 ms', logOf(lineOf('1', '1000000001')), 2, 'Interval_Length', /at most/],
    ['a Tag key without a value', logOf(`Tag=mode:,${lineOf()}`), 2, 'Tag', /is not key:value/],
    [
      'a Tag pair without a key',
      logOf(`Tag=:open,${lineOf()}`),
      2,
      'Tag',
      /":open" is not key:value/,
    ],
    [
      'fractional connections',
      logOf(`Tag=connections:1.5,${lineOf()}`),
      2,
      'Tag.connections',
      /connections must be a non-negative number/,
    ],
    [
      'a negative rate',
      logOf(`Tag=targetRps:-2,${lineOf()}`),
      2,
      'Tag.targetRps',
      /targetRps must be/,
    ],
    [
      'a rate that is no number',
      logOf(`Tag=targetRps:fast,${lineOf()}`),
      2,
      'Tag.targetRps',
      /targetRps must be/,
    ],
    [
      'base64 of the wrong length',
      logOf(`1,1,1,${H.b64}A`),
      2,
      'Interval_Compressed_Histogram',
      /is not base64/,
    ],
  ])('%s', (_, text, line, field, message) => {
    const r = refusal(text);
    expect(r.line).toBe(line);
    expect(r.field).toBe(field);
    expect(r.message).toMatch(message);
    expect(r.message.startsWith(`line ${line}: `)).toBe(true);
  });

  // RFC 4648's alphabet: A-Z a-z 0-9 + /, and "=" only as up to two padding characters at the
  // end (the histogram here ends "...BME=").
  it.each([
    ['a character outside the alphabet first', (b: string) => `!${b.slice(1)}`],
    ['one just before the padding', (b: string) => `${b.slice(0, -2)}!=`],
    ["base64url's '-' inside", (b: string) => `${b.slice(0, 10)}-${b.slice(11)}`],
    ['padding inside', (b: string) => `${b.slice(0, 8)}=${b.slice(9)}`],
    ['three padding characters', (b: string) => `${b.slice(0, -4)}A===`],
  ])('a histogram with %s is not base64', (_, spoil) => {
    const b64 = spoil(H.b64);
    expect(b64.length % 4).toBe(0);
    expect(refusal(logOf(`1,1,1,${b64}`))).toMatchObject({
      problem: 'invalid_histogram',
      field: 'Interval_Compressed_Histogram',
      message: 'line 2: Interval_Compressed_Histogram is not base64',
    });
  });

  it('numbers may carry an exponent, signed or not', () => {
    const [r, upper] = decodeHdrLog(
      logOf(
        `Tag=targetRps:2.5e-1;connections:1e+2,${lineOf('1e0')}`,
        `Tag=targetRps:1E3,${lineOf()}`,
      ),
    ).results;
    expect(r).toMatchObject({ targetRps: 0.25, connections: 100 });
    expect(r?.intervals[0]?.startMs).toBe((START_S + 1) * 1000);
    expect(upper?.targetRps).toBe(1000);
  });

  it('a line with too few or too many fields names the first missing one', () => {
    expect(refusal(logOf('1.0,1.0'))).toMatchObject({
      problem: 'truncated',
      field: 'Interval_Max',
      line: 2,
    });
    expect(refusal(logOf('1.0'))).toMatchObject({ field: 'Interval_Length' });
    expect(refusal(logOf(`1,1,1,${H.b64},extra`)).field).toBe('Interval_Compressed_Histogram');
    expect(refusal(logOf('1.0,1.0')).message).toMatch(/has 4 fields .* this one has 2/);
  });

  it('a histogram that is no HdrHistogram says why', () => {
    const r = refusal(logOf(`1,1,1,${Buffer.from('not a histogram!').toString('base64')}`));
    expect(r).toMatchObject({
      problem: 'invalid_histogram',
      field: 'Interval_Compressed_Histogram',
    });
    expect(r.message).toMatch(/^line 2: Interval_Compressed_Histogram: .*cookie/);
  });

  it('a relative start with nothing to place it, and a start past the last instant', () => {
    expect(refusal(lineOf('5'))).toMatchObject({ field: 'StartTimestamp', line: 1 });
    expect(refusal(lineOf('5')).message).toMatch(/is relative and the log has no/);
    expect(refusal(`#[BaseTime: 0]\n${lineOf('1e10')}`).message).toMatch(
      /outside 1970-01-01T00:00:00Z to/,
    );
  });

  it('starts of one step must increase; another step may start earlier', () => {
    expect(refusal(logOf(lineOf('2'), lineOf('2')))).toMatchObject({
      line: 3,
      field: 'StartTimestamp',
    });
    expect(refusal(logOf(lineOf('2'), lineOf('2'))).message).toMatch(/starts must increase/);
    const d = decodeHdrLog(
      logOf(`Tag=a,${lineOf('2')}`, `Tag=b,${lineOf('1')}`, `Tag=a,${lineOf('3')}`),
    );
    expect(d.results.map((r) => r.intervals.length)).toEqual([2, 1]);
  });

  it('a log with no interval line', () => {
    expect(refusal(logOf('# nothing'))).toMatchObject({
      problem: 'no_results',
      message: 'the log holds no interval line',
    });
  });
});

describe('looksLikeHdrLog', () => {
  it.each([
    ['#[StartTime: 1.0 (seconds since epoch)]', true],
    ['#[BaseTime: 1.0 (seconds since epoch)]', true],
    ['#[Histogram log format version 1.3]', true],
    ['Tag=a,1.0,1.0,1.0,HISTFAAA', true],
    ['0.127,1.007,2.769,HISTFAAAEXicJYhBCoAgFA', true],
    ['x\n0.127,1.007,2.769,HISTFAAA', true],
    ['#[StartTime 1.0]', false],
    ['# StartTime: 1.0', false],
    ['Tag=a b,1.0', false],
    ['Tag=a,x', false],
    ['0.127,1.007,2.769,hist', false],
    ['0.127,1.007,HISTFAAA', false],
    ['timestamp,latency\n1,2', false],
  ])('%j: %s', (head, want) => {
    expect(looksLikeHdrLog(head)).toBe(want);
  });
});
