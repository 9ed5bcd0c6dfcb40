import { describe, expect, it } from 'vitest';
import { numeric, parseTags, StatsdReader, type StatsdSink } from './statsd-lines.ts';

function collect(text: string) {
  const samples: unknown[][] = [];
  const events: string[] = [];
  const checks: string[] = [];
  const malformed: { line: string; reason: string }[] = [];
  const row = (
    s: Parameters<StatsdSink['sample']>[0],
    value: number,
    member: string | null,
    delta: boolean,
  ) => [s.name, s.type, value, member, delta, s.rate, s.tags, s.timestampMs, s.containerId];
  const sink: StatsdSink = {
    sample: (s, value, delta) => samples.push(row(s, value, null, delta)),
    member: (s, member) => samples.push(row(s, Number.NaN, member, false)),
    event: (l) => events.push(l),
    serviceCheck: (l) => checks.push(l),
    malformed: (line, reason) => malformed.push({ line, reason }),
  };
  // Twice through one reader: the second pass finds every shape decoded by the first.
  const reader = new StatsdReader(sink);
  reader.readText(text);
  samples.length = 0;
  events.length = 0;
  checks.length = 0;
  malformed.length = 0;
  const lines = reader.readText(text);
  return { lines, samples, events, checks, malformed };
}

describe('StatsD line protocol', () => {
  it('reads every metric type', () => {
    const r = collect(
      'a.count:3|c\nb.gauge:42.5|g\nc.timer:12|ms\nd.hist:7|h\ne.dist:0.25|d\nf.set:user-17|s',
    );
    expect(r.malformed).toEqual([]);
    expect(r.samples.map((s) => [s[0], s[1], s[2], s[3]])).toEqual([
      ['a.count', 'c', 3, null],
      ['b.gauge', 'g', 42.5, null],
      ['c.timer', 'ms', 12, null],
      ['d.hist', 'h', 7, null],
      ['e.dist', 'd', 0.25, null],
      ['f.set', 's', Number.NaN, 'user-17'],
    ]);
  });

  it('reads sample rates, DogStatsD tags, |T timestamps and |c: container ids', () => {
    const r = collect('xds.push:1|c|@0.1|#env:prod,mesh:consul,canary|T1770000000|c:abc123');
    expect(r.samples).toEqual([
      [
        'xds.push',
        'c',
        1,
        null,
        false,
        0.1,
        'env:prod,mesh:consul,canary',
        1770000000000,
        'abc123',
      ],
    ]);
    expect(parseTags('env:prod,mesh:consul,canary,url:http://x:1')).toEqual({
      env: 'prod',
      mesh: 'consul',
      canary: '',
      url: 'http://x:1',
    });
  });

  it('marks signed gauges as deltas, and only gauges', () => {
    const r = collect('g:+5|g\ng:-3|g\ng:7|g\nc:-2|c');
    expect(r.samples.map((s) => [s[2], s[4]])).toEqual([
      [5, true],
      [-3, true],
      [7, false],
      [-2, false],
    ]);
  });

  it('takes several metrics per datagram, a trailing newline and CRLF', () => {
    const r = collect('a:1|c\r\nb:2|c\n\nc:3|c\n');
    expect(r.lines).toBe(3);
    expect(r.samples.map((s) => s[0])).toEqual(['a', 'b', 'c']);
  });

  it('unpacks DogStatsD multi-value lines, whole or not at all', () => {
    const r = collect('lat:1:2:3|d|#a:b\nbad:1:x|d');
    expect(r.samples.map((s) => s[2])).toEqual([1, 2, 3]);
    expect(r.malformed).toHaveLength(1);
  });

  it('recognises events and service checks without counting them malformed', () => {
    const r = collect('_e{5,4}:title|text|#env:prod\n_sc|consul.up|0|#env:prod\nok:1|c');
    expect(r.events).toEqual(['_e{5,4}:title|text|#env:prod']);
    expect(r.checks).toEqual(['_sc|consul.up|0|#env:prod']);
    expect(r.malformed).toEqual([]);
    expect(r.samples).toHaveLength(1);
  });

  it('counts malformed lines and goes on', () => {
    const r = collect(
      [
        'no-value',
        ':1|c',
        'a:1',
        'a:abc|c',
        'a:|c',
        'a:0x10|c',
        'a:NaN|g',
        'a:1|zz',
        'a:1|c|@2',
        'a:1|c|@0',
        'a:1|c|Tsoon',
        'good:1|c',
      ].join('\n'),
    );
    expect(r.malformed.map((m) => m.line)).toEqual([
      'no-value',
      ':1|c',
      'a:1',
      'a:abc|c',
      'a:|c',
      'a:0x10|c',
      'a:NaN|g',
      'a:1|zz',
      'a:1|c|@2',
      'a:1|c|@0',
      'a:1|c|Tsoon',
    ]);
    expect(r.malformed[7]?.reason).toContain('unknown type "zz"');
    expect(r.samples.map((s) => s[0])).toEqual(['good']);
  });

  it('accepts exponents and leading dots as numbers', () => {
    const r = collect('a:1e3|c\nb:.5|g\nc:-2.5e-1|ms');
    expect(r.samples.map((s) => s[2])).toEqual([1000, 0.5, -0.25]);
  });

  it('survives a 64 KiB line of garbage', () => {
    const r = collect('x'.repeat(65_000));
    expect(r.malformed).toHaveLength(1);
  });
});

describe('numeric', () => {
  it('takes plain decimals and nothing else', () => {
    for (const yes of ['1', '-2.5', '+3', '.5', '1.', '1e3', '5.e-2', '0.25E+2']) {
      expect([yes, numeric(yes)]).toEqual([yes, true]);
    }
    for (const no of ['', '.', '-', 'e5', '1e', '0x1', 'NaN', 'Infinity', '1.2.3', '1 ', '1_0']) {
      expect([no, numeric(no)]).toEqual([no, false]);
    }
  });

  it('rejects a long run of digits that ends badly without backtracking over it', () => {
    // The regex this replaced was quadratic here: 200,000 digits took minutes, so a
    // regression fails this test by its timeout.
    expect(numeric(`${'9'.repeat(200_000)}x`)).toBe(false);
    expect(numeric(`${'9'.repeat(200_000)}.${'9'.repeat(200_000)}.`)).toBe(false);
    expect(numeric('9'.repeat(200_000))).toBe(true);
  });
});
