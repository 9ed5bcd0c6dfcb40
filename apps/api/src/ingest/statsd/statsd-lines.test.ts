import { describe, expect, it } from 'vitest';
import {
  numeric,
  parseTags,
  type Shape,
  StatsdReader,
  type StatsdSink,
  wholeNumber,
} from './statsd-lines.ts';

function collect(text: string | Buffer) {
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
  const read = (t: string | Buffer) =>
    typeof t === 'string' ? reader.readText(t) : reader.read(t);
  read(text);
  samples.length = 0;
  events.length = 0;
  checks.length = 0;
  malformed.length = 0;
  const lines = read(text);
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

  it('does not take one line for another whose name ends where its suffix starts', () => {
    // Found by the fuzz: both lines are the bytes "hist|" + "|h" around their value.
    const r = collect('hist|:7|h\nhist:7||h');
    expect(r.samples.map((s) => [s[0], s[1]])).toEqual([['hist|', 'h']]);
    expect(r.malformed).toHaveLength(1);
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

// Telegraf's tags in the bucket: the cases of influxdata/telegraf
// plugins/inputs/statsd/statsd_test.go (@010e2320) and the format hot-shots 17.1.1 sends
// with `telegraf: true` (lib/statsd.js, Client.prototype.send).
describe('Telegraf-style tags (name,k=v:value|type)', () => {
  const tagsOf = (line: string) => {
    const r = collect(line);
    expect(r.malformed).toEqual([]);
    return r.samples.map((s) => [s[0], parseTags(s[6] as string)]);
  };

  it('reads the buckets of TestParse_Tags: the name, then each k=v', () => {
    // Telegraf also turns the name's dots into "_" (its metric_separator, for InfluxDB
    // measurements); meshbench keeps names as sent.
    expect(tagsOf('cpu.idle,host=localhost:1|c')).toEqual([['cpu.idle', { host: 'localhost' }]]);
    expect(tagsOf('cpu.idle,host=localhost,region=west:1|c')).toEqual([
      ['cpu.idle', { host: 'localhost', region: 'west' }],
    ]);
    expect(tagsOf('cpu.idle,host=localhost,color=red,region=west:1|c')).toEqual([
      ['cpu.idle', { host: 'localhost', region: 'west', color: 'red' }],
    ]);
  });

  it('reads tags as parseKeyValue does (TestParseKeyValue, issue 10113)', () => {
    // "foo=bar" -> foo: bar; "baz" -> no key, dropped; a value may hold "=".
    expect(tagsOf('m,foo=bar,baz:1|c')).toEqual([['m', { foo: 'bar' }]]);
    expect(tagsOf('m,uri=/service/endpoint?sampleParam={paramValue}=1:1|c')).toEqual([
      ['m', { uri: '/service/endpoint?sampleParam={paramValue}=1' }],
    ]);
    expect(tagsOf('m,=nokey,k=:1|g')).toEqual([['m', { k: '' }]]);
  });

  it('keeps one name with different tags as different series (TestParse_MeasurementsWithSameName)', () => {
    const r = collect(
      'test.counter,host=localhost:1|c\ntest.counter,host=localhost,region=west:1|c',
    );
    const keys = r.samples.map((s) => s[0]);
    expect(keys).toEqual(['test.counter', 'test.counter']);
    const reader = new StatsdReader({
      sample: (shape) => seriesKeys.push(shape.seriesKey),
      member: () => {},
      event: () => {},
      serviceCheck: () => {},
      malformed: () => {},
    });
    const seriesKeys: string[] = [];
    reader.readText('test.counter,host=localhost:1|c\ntest.counter,host=localhost,region=west:1|c');
    expect(new Set(seriesKeys).size).toBe(2);
  });

  it('is the same series as the DogStatsD line with the same tags', () => {
    const seriesKeys: string[] = [];
    const reader = new StatsdReader({
      sample: (shape) => seriesKeys.push(shape.seriesKey),
      member: () => {},
      event: () => {},
      serviceCheck: () => {},
      malformed: () => {},
    });
    reader.readText('xds.pushes,run=r1,mesh=consul:1|c\nxds.pushes:2|c|#run:r1,mesh:consul');
    expect(seriesKeys).toHaveLength(2);
    expect(seriesKeys[0]).toBe(seriesKeys[1]);
  });

  it('lets DogStatsD |# tags win over the bucket tags, as Telegraf with datadog_extensions does', () => {
    expect(tagsOf('m,host=a,zone=z:1|c|#host:b')).toEqual([['m', { host: 'b', zone: 'z' }]]);
    // TestParse_DataDogTags: a DogStatsD value may hold colons.
    expect(
      tagsOf('my_counter:1|c|#host:localhost,environment:prod,endpoint:/:tenant?/oauth/ro'),
    ).toEqual([
      ['my_counter', { host: 'localhost', environment: 'prod', endpoint: '/:tenant?/oauth/ro' }],
    ]);
  });

  it("reads hot-shots' telegraf lines: values, rates, packed values, sets", () => {
    // What hot-shots sends for increment('xds.pushes', 2, 0.5, { run, mesh }) and friends.
    const r = collect(
      [
        'xds.pushes,run=r-1,mesh=consul:2|c|@0.5',
        'cpu.pct,run=r-1:-12|g',
        'lat,run=r-1:1:2:3|ms',
        'nodes.seen,run=r-1:n1|s',
      ].join('\n'),
    );
    expect(r.malformed).toEqual([]);
    expect(r.samples.map((s) => [s[0], s[1], s[2], s[3], s[4], s[5], s[6]])).toEqual([
      ['xds.pushes', 'c', 2, null, false, 0.5, 'run:r-1,mesh:consul'],
      ['cpu.pct', 'g', -12, null, true, 1, 'run:r-1'],
      ['lat', 'ms', 1, null, false, 1, 'run:r-1'],
      ['lat', 'ms', 2, null, false, 1, 'run:r-1'],
      ['lat', 'ms', 3, null, false, 1, 'run:r-1'],
      ['nodes.seen', 's', Number.NaN, 'n1', false, 1, 'run:r-1'],
    ]);
  });

  it('refuses a bucket without a name', () => {
    const r = collect(',host=a:1|c\nok:1|c');
    expect(r.malformed.map((m) => m.reason)).toEqual(['no metric name']);
    expect(r.samples).toHaveLength(1);
  });
});

describe('a bad line costs only itself', () => {
  const good = 'good:1|c';
  const bad: [string, string | Buffer, string][] = [
    ['NUL in the name', 'a\u0000b:1|c', 'NUL'],
    ['NUL in the tags', 'a:1|c|#k:v\u0000', 'NUL'],
    ['NUL in the value', 'a:1\u0000|c', 'not a number'],
    ['NUL in a set member', 's:m\u0000|s', 'NUL'],
    ['NUL in a Telegraf tag', 'a,k=\u0000:1|c', 'NUL'],
    ['invalid UTF-8 in the name', Buffer.from([0x61, 0xff, 0xfe, 0x3a, 0x31, 0x7c, 0x63]), 'UTF-8'],
    // A lone surrogate (U+D800) as WTF-8 bytes: no UTF-8 encoder writes it.
    [
      'a lone surrogate in the tags',
      Buffer.concat([Buffer.from('a:1|c|#k:'), Buffer.from([0xed, 0xa0, 0x80])]),
      'UTF-8',
    ],
    [
      'invalid UTF-8 in a set member',
      Buffer.concat([Buffer.from('s:'), Buffer.from([0xc3, 0x28]), Buffer.from('|s')]),
      'UTF-8',
    ],
    ['NaN', 'a:NaN|g', 'not a number'],
    ['Infinity', 'a:Infinity|ms', 'not a number'],
    ['1e400', 'a:1e400|h', 'not a number'],
    ['a rate of 0', 'a:1|c|@0', 'sample rate'],
    ['a negative rate', 'a:1|c|@-0.5', 'sample rate'],
    ['a rate over 1', 'a:1|c|@1.5', 'sample rate'],
    ['a rate of 1e-300', 'a:1|c|@1e-300', 'sample rate'],
    ['a rate of NaN', 'a:1|c|@NaN', 'sample rate'],
    ['a value / rate beyond float64', 'a:1e300|c|@1e-9', 'not finite'],
    ['a 2 KB name', `${'n'.repeat(2048)}:1|c`, 'name over 1024'],
    ['a 60 KB name', `${'n'.repeat(60_000)}:1|c`, 'name over 1024'],
    ['a 10 MB name', `${'n'.repeat(10 * 1024 * 1024)}:1|c`, 'a line over 65536 bytes'],
    ['a 5 KB tag value', `a:1|c|#k:${'v'.repeat(5000)}`, 'over 4096'],
    ['a 5 KB Telegraf tag value', `a,k=${'v'.repeat(5000)}:1|c`, 'over 4096'],
    ['a 5 KB set member', `s:${'m'.repeat(5000)}|s`, 'over 4096'],
    ['a time after 9999', 'a:1|c|T999999999999', 'after 9999'],
  ];

  it.each(bad)('%s: malformed, and the lines around it kept', (_, line, reason) => {
    const datagram = Buffer.concat([
      Buffer.from(`${good}\n`),
      typeof line === 'string' ? Buffer.from(line) : line,
      Buffer.from(`\n${good}`),
    ]);
    const r = collect(datagram);
    expect(r.malformed).toHaveLength(1);
    expect(r.malformed[0]?.reason).toContain(reason);
    expect(r.samples.map((s) => [s[0], s[2]])).toEqual([
      ['good', 1],
      ['good', 1],
    ]);
  });

  it('keeps what is valid UTF-8, U+FFFD and astral characters included', () => {
    const r = collect('caf\u00e9.\ufffd.\u{1f680}:1|c|#k:\u00fc');
    expect(r.malformed).toEqual([]);
    expect(r.samples.map((s) => [s[0], s[6]])).toEqual([
      ['caf\u00e9.\ufffd.\u{1f680}', 'k:\u00fc'],
    ]);
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

// Boundaries and paths the mutation run (issue 28) found untested; each expected value is the
// upstream rule or the limit documented at the top of statsd-lines.ts, worked by hand.
describe('the reader, path by path', () => {
  type Seen = { shape: Shape; value: number; delta: boolean; integer: string | undefined };
  function reading(maxShapes?: number) {
    const seen: Seen[] = [];
    const members: [Shape, string][] = [];
    const malformed: { line: string; reason: string }[] = [];
    const reader = new StatsdReader(
      {
        sample: (shape, value, delta, integer) => seen.push({ shape, value, delta, integer }),
        member: (shape, member) => members.push([shape, member]),
        event: () => {},
        serviceCheck: () => {},
        malformed: (line, reason) => malformed.push({ line, reason }),
      },
      maxShapes,
    );
    return { reader, seen, members, malformed };
  }

  it('names why each malformed line is refused', () => {
    const { reader, malformed } = reading();
    reader.readText(
      [
        'no-value',
        'a:1',
        'a:1..5|c',
        'a:1|c|@0x1',
        'a:1|c|@ 0.5',
        'a:1|c|T0',
        'a:1|c|T1e9',
        'a:1|c|T253402300800',
      ].join('\n'),
    );
    expect(malformed).toEqual([
      { line: 'no-value', reason: 'no "name:value"' },
      { line: 'a:1', reason: 'no "|type"' },
      { line: 'a:1..5|c', reason: 'value "1..5" is not a number' },
      { line: 'a:1|c|@0x1', reason: 'sample rate "0x1" is not in [1e-9, 1]' },
      { line: 'a:1|c|@ 0.5', reason: 'sample rate " 0.5" is not in [1e-9, 1]' },
      { line: 'a:1|c|T0', reason: 'timestamp "0" is not unix seconds' },
      { line: 'a:1|c|T1e9', reason: 'timestamp "1e9" is not unix seconds' },
      // 9999-12-31T23:59:59Z is 253402300799 s: one second later is refused.
      { line: 'a:1|c|T253402300800', reason: 'timestamp "253402300800" is after 9999' },
    ]);
  });

  it('takes the edges of each range: rate 1 and 1e-9, the last second of 9999', () => {
    const { reader, seen, malformed } = reading();
    reader.readText('a:1|c|@1\nb:1|c|@1e-9\nc:1|c|T253402300799\nd:1|c|T1');
    expect(malformed).toEqual([]);
    expect(seen.map((s) => [s.shape.name, s.shape.rate, s.shape.timestampMs])).toEqual([
      ['a', 1, 0],
      ['b', 1e-9, 0],
      ['c', 1, 253402300799000],
      ['d', 1, 1000],
    ]);
  });

  it('holds names, tags, container ids and set members to their byte limits, inclusive', () => {
    const { reader, seen, members, malformed } = reading();
    const at = (n: number, c = 'x') => c.repeat(n);
    reader.readText(
      [
        `${at(1024)}:1|c`,
        `${at(1025)}:1|c`,
        `a:1|c|#${at(1024)}:v`,
        `a:1|c|#${at(1025)}:v`,
        `a:1|c|#k:${at(4096)}`,
        `a:1|c|#k:${at(4097)}`,
        `a,${at(1024)}=v:1|c`,
        `a,${at(1025)}=v:1|c`,
        `a,k=${at(4096)}:1|c`,
        `a,k=${at(4097)}:1|c`,
        `a:1|c|c:${at(4096)}`,
        `a:1|c|c:${at(4097)}`,
        `s:${at(4096)}|s`,
        `s:${at(4097)}|s`,
      ].join('\n'),
    );
    expect(malformed.map((m) => m.reason)).toEqual([
      'metric name over 1024 bytes',
      'tag key over 1024 bytes',
      'tag "k" has a value over 4096 bytes',
      'tag key over 1024 bytes',
      'tag "k" has a value over 4096 bytes',
      'container id over 4096 bytes',
      'set member over 4096 bytes',
    ]);
    expect(seen.map((s) => s.shape.name.length)).toEqual([1024, 1, 1, 1, 1, 1]);
    expect(seen[5]?.shape.containerId).toBe(at(4096));
    expect(members.map(([, m]) => m.length)).toEqual([4096]);
  });

  it('counts a tag key in UTF-8 bytes, not in characters (a DogStatsD key of 1000 "é")', () => {
    // 1000 x U+00E9 is 1000 UTF-16 units but 2000 UTF-8 bytes: over the 1024-byte limit,
    // as the same key in the bucket (Telegraf) already was.
    const key = '\u00e9'.repeat(1000);
    const { reader, seen, malformed } = reading();
    reader.readText(`a:1|c|#${key}:v\na,${key}=v:1|c\nb:1|c|#${'\u00e9'.repeat(512)}:v`);
    expect(malformed.map((m) => m.reason)).toEqual([
      'tag key over 1024 bytes',
      'tag key over 1024 bytes',
    ]);
    // 512 x U+00E9 is 1024 bytes: at the limit, kept.
    expect(seen.map((s) => s.shape.name)).toEqual(['b']);
  });

  it('reads a line of 65536 bytes and refuses one byte more, quoting its first 200', () => {
    // pp:1:1:...:1|d packs 32,766 values into exactly 65,536 bytes.
    const line = (n: number) => `pp:${Array(n).fill('1').join(':')}|d`;
    expect(Buffer.byteLength(line(32_766))).toBe(65_536);
    const { reader, seen, malformed } = reading();
    reader.readText(`${line(32_766)}\n${line(32_766)}0`);
    expect(seen).toHaveLength(32_766);
    expect(malformed).toEqual([
      { line: line(32_766).slice(0, 200), reason: 'a line over 65536 bytes' },
    ]);
  });

  it('marks signed gauges in packed and exponent values, and keeps an integer beyond 2^53', () => {
    const { reader, seen } = reading();
    reader.readText(
      [
        'g:+1:-2:3|g',
        'g:1e1|g',
        'g:-1e1|g',
        'c:+1e1|c',
        'g:18446744073709551615|g',
        'g:-0018446744073709551615|g',
        'g:1.5e300|g',
        'c:18446744073709551615|c',
        'g:9007199254740991|g',
      ].join('\n'),
    );
    expect(seen.map((s) => [s.shape.name, s.value, s.delta, s.integer])).toEqual([
      ['g', 1, true, undefined],
      ['g', -2, true, undefined],
      ['g', 3, false, undefined],
      ['g', 10, false, undefined],
      ['g', -10, true, undefined],
      ['c', 10, false, undefined],
      ['g', 2 ** 64, false, '18446744073709551615'],
      ['g', -(2 ** 64), true, '-18446744073709551615'],
      // Not a whole number as written: no exact text.
      ['g', 1.5e300, false, undefined],
      // Not a gauge: a counter's value is summed as a float.
      ['c', 2 ** 64, false, undefined],
      // 2^53 - 1 is a safe integer: the float is exact.
      ['g', 9007199254740991, false, undefined],
    ]);
  });

  it('decodes each shape once, wherever its line is in the datagram', () => {
    const { reader, seen } = reading();
    reader.readText('a:1|c|#k:v\nbb:2|c\na:3|c|#k:v');
    reader.readText('a:4|c|#k:v');
    expect(seen[0]?.shape).toBe(seen[2]?.shape);
    expect(seen[0]?.shape).toBe(seen[3]?.shape);
    expect(seen[1]?.shape).not.toBe(seen[0]?.shape);
  });

  it('tells apart two shapes whose first hash collides', () => {
    // FNV-1a 32 of "m4vl8:|c" and "mlpd6:|c" is 1895379981 for both (found by a birthday
    // search); the second hash differs.
    const { reader, seen } = reading();
    reader.readText('m4vl8:1|c\nmlpd6:2|c\nm4vl8:3|c\nmlpd6:4|c');
    expect(seen.map((s) => [s.shape.name, s.value])).toEqual([
      ['m4vl8', 1],
      ['mlpd6', 2],
      ['m4vl8', 3],
      ['mlpd6', 4],
    ]);
    expect(seen[0]?.shape).toBe(seen[2]?.shape);
    expect(seen[1]?.shape).toBe(seen[3]?.shape);
  });

  it('forgets its shapes on trim only when it holds more than its bound', () => {
    const { reader, seen } = reading(2);
    reader.readText('a:1|c\nb:1|c');
    reader.trim(); // 2 shapes, bound 2: kept
    reader.readText('a:2|c');
    expect(seen[2]?.shape).toBe(seen[0]?.shape);
    reader.readText('c:1|c');
    reader.trim(); // 3 shapes: forgotten
    reader.readText('a:3|c');
    expect(seen[4]?.shape).not.toBe(seen[0]?.shape);
    expect(seen[4]?.shape).toEqual(seen[0]?.shape);
    // Counted again from none: two more shapes do not forget them.
    reader.readText('b:2|c');
    reader.trim();
    reader.readText('a:4|c');
    expect(seen[6]?.shape).toBe(seen[4]?.shape);
  });

  it('keys a series by type, name, tags and container, not by rate or time', () => {
    const { reader, seen } = reading();
    reader.readText(
      ['a:1|c', 'a:1|c|@0.5', 'a:1|c|T1', 'a:1|c|c:x', 'a:1|g', 'a:1|c|#k:v', 'b:1|c'].join('\n'),
    );
    const keys = seen.map((s) => s.shape.seriesKey);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).toBe(keys[0]);
    expect(new Set([keys[0], keys[3], keys[4], keys[5], keys[6]]).size).toBe(5);
    expect(seen[0]?.shape).toMatchObject({ state: null, epoch: -1 });
  });

  it('ignores sections it does not know (DogStatsD e: and card:)', () => {
    const { reader, seen, malformed } = reading();
    reader.readText('a:1|c|e:it-false,cn-nginx|card:low|#k:v');
    expect(malformed).toEqual([]);
    expect(seen.map((s) => [s.shape.tags, s.shape.containerId])).toEqual([['k:v', '']]);
  });

  it('reads events and service checks by their first bytes only', () => {
    const events: string[] = [];
    const checks: string[] = [];
    const names: string[] = [];
    const bad: string[] = [];
    const reader = new StatsdReader({
      sample: (shape) => names.push(shape.name),
      member: () => {},
      event: (l) => events.push(l),
      serviceCheck: (l) => checks.push(l),
      malformed: (line, reason) => bad.push(`${line}: ${reason}`),
    });
    reader.readText('_e{1,1}:a|b\n_sc|x|0\n_sc\n_e\n_s:1|c\n_x:1|c');
    expect(events).toEqual(['_e{1,1}:a|b']);
    expect(checks).toEqual(['_sc|x|0']);
    expect(bad).toEqual(['_sc: no "name:value"', '_e: no "name:value"']);
    expect(names).toEqual(['_s', '_x']);
  });
});

describe('parseTags and wholeNumber', () => {
  it('skips empty tags and keeps a later key', () => {
    expect(parseTags('a,,b:1,a:2,')).toEqual({ a: '2', b: '1' });
    expect(parseTags('')).toEqual({});
  });

  it('writes whole numbers without sign or leading zeros, and only whole numbers', () => {
    expect(wholeNumber('+007')).toBe('7');
    expect(wholeNumber('-0')).toBe('0');
    expect(wholeNumber('-000')).toBe('0');
    expect(wholeNumber('-12')).toBe('-12');
    expect(wholeNumber('18446744073709551615')).toBe('18446744073709551615');
    for (const no of ['1.0', '1e3', '', '-', ' 1', '1 ', '0x1']) expect(wholeNumber(no)).toBeNull();
  });
});
