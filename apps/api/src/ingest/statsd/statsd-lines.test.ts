import { describe, expect, it } from 'vitest';
import { numeric, parseTags, StatsdReader, type StatsdSink } from './statsd-lines.ts';

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
