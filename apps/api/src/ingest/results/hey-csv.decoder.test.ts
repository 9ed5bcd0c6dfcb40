import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sniff } from './detect.ts';
import { decodeHeyCsv, HeyCsvAggregator, isHeyCsvHeader } from './hey-csv.decoder.ts';
import { decodeResults } from './index.ts';
import { thrown } from './test-fixtures.ts';

// Written by Debian's hey 0.1.4 (fixtures/README.md): 50 requests, 8 columns.
const real = readFileSync(new URL('./fixtures/hey-0.1.4-debian.csv', import.meta.url), 'utf8');

describe('hey -o csv', () => {
  it('reads a file hey wrote as its raw samples say', () => {
    const rows = real.trim().split('\n').slice(1);
    const ms = rows.map((r) => Number(r.split(',')[0]) * 1000).sort((a, b) => a - b);
    const spanMs = Math.max(...rows.map((r) => Number(r.split(',')[7]) + Number(r.split(',')[0])));
    const [point] = decodeHeyCsv(real).results;
    expect(point?.requests).toBe(50);
    expect(point?.errors).toBe(0);
    expect(point?.durationMs).toBeCloseTo(spanMs * 1000, 9);
    expect(point?.achievedRps).toBeCloseTo(50 / spanMs, 6);
    for (const q of point?.percentiles ?? []) {
      expect(q.ms).toBeCloseTo(ms[Math.ceil((q.p / 100) * 50) - 1] as number, 9);
    }
    expect(point?.minMs).toBeCloseTo(ms[0] as number, 9);
    expect(point?.maxMs).toBeCloseTo(ms[49] as number, 9);
  });

  it('is told by its header, and auto-detected as hey', async () => {
    expect(sniff(real)).toBe('hey');
    expect((await decodeResults(real)).format).toBe('hey');
    expect(sniff(`\uFEFF${real}`)).toBe('hey');
  });

  it('reads the earlier headers (no offset: no duration or rate; no status: no errors)', () => {
    const seven = decodeHeyCsv(
      'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code\n0.0012,0.0001,0.0000,0.0000,0.0010,0.0001,200\n0.0031,0.0001,0.0000,0.0000,0.0029,0.0001,502\n',
    ).results[0];
    expect(seven).toMatchObject({
      requests: 2,
      errors: 1,
      errorsByCode: { '502': 1 },
      durationMs: null,
      achievedRps: null,
    });
    const six = decodeHeyCsv(
      'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read\r\n0.0012,0.0001,0.0000,0.0000,0.0010,0.0001\r\n',
    ).results[0];
    expect(six).toMatchObject({ requests: 1, errors: null, minMs: 1.2, maxMs: 1.2 });
  });

  it("refuses a line that is not hey's, naming it", () => {
    const header = real.split('\n')[0];
    const short = thrown(() => decodeHeyCsv(`${header}\n0.0012,0.0001\n`));
    expect(short).toMatchObject({ problem: 'invalid_line', line: 2 });
    expect(short.message).toBe('line 2: 2 columns, the header has 8');
    const status = thrown(() =>
      decodeHeyCsv(`${header}\n0.0012,0.0001,0.0000,0.0000,0.0010,0.0001,OK,0.0100\n`),
    );
    expect(status).toMatchObject({ problem: 'invalid_line', line: 2, field: 'status-code' });
    const negative = thrown(() =>
      decodeHeyCsv(`${header}\n-0.0012,0.0001,0.0000,0.0000,0.0010,0.0001,200,0.0100\n`),
    );
    expect(negative).toMatchObject({ problem: 'invalid_line', line: 2, field: 'response-time' });
    expect(thrown(() => decodeHeyCsv('response-time,x\n1\n'))).toMatchObject({
      problem: 'invalid_line',
      line: 1,
    });
  });
});

// Rows in the shape requester/print.go csvTmpl writes (rakyll/hey 8985827): seconds as
// formatNumber's "%4.4f", the status as formatNumberInt's "%d", the offset in seconds.
const HEADER8 =
  'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset';
const row = (seconds: string, status: number, offset: string) =>
  `${seconds},0.0001,0.0000,0.0000,${seconds},0.0000,${status},${offset}`;

describe('hey -o csv, by the rules of print.go and report.go', () => {
  it('counts HTTP statuses >= 400 as errors, by code; 1xx to 3xx are not', () => {
    const codes = [100, 200, 399, 400, 404, 599, 400];
    const text = [HEADER8, ...codes.map((c) => row('0.0010', c, '0.0000'))].join('\n');
    const [point] = decodeHeyCsv(text).results;
    expect(point?.requests).toBe(7);
    expect(point?.errors).toBe(4);
    expect(point?.errorsByCode).toEqual({ '400': 2, '404': 1, '599': 1 });
  });

  it('refuses a status that is no 1- to 3-digit number', () => {
    for (const status of ['', '4000', '-1', '2O0']) {
      const text = `${HEADER8}\n0.0010,0.0001,0.0000,0.0000,0.0010,0.0000,${status},0.0000`;
      expect(thrown(() => decodeHeyCsv(text))).toMatchObject({ line: 2, field: 'status-code' });
    }
    // A 2-digit status, were one written, is no error.
    const [point] = decodeHeyCsv(`${HEADER8}\n${row('0.0010', 99, '0.0000')}`).results;
    expect([point?.errors, point?.errorsByCode]).toEqual([0, {}]);
  });

  it('spans from offset 0 to the latest end (offset + response time), whichever row', () => {
    // Row 1 starts at 0 s and takes 0.5 s; row 2 starts later (0.2 s) but ends first (0.3 s).
    const text = [HEADER8, row('0.5000', 200, '0.0000'), row('0.1000', 200, '0.2000')].join('\n');
    const [point] = decodeHeyCsv(text).results;
    expect(point?.durationMs).toBe(500);
    expect(point?.achievedRps).toBe(4);
    // A later start that ends last: 0.3 s + 0.4 s.
    const later = [HEADER8, row('0.5000', 200, '0.0000'), row('0.4000', 200, '0.3000')].join('\n');
    expect(decodeHeyCsv(later).results[0]?.durationMs).toBe(700);
  });

  it('reads each value to its 0.1 ms, within 0.05 ms of what hey measured (%4.4f)', () => {
    const [point] = decodeHeyCsv(`${HEADER8}\n${row('0.0123', 200, '0.0000')}`).results;
    expect(point?.minMs).toBe(12.3);
    expect(point?.maxMs).toBe(12.3);
    const p50 = point?.percentiles.find((q) => q.p === 50);
    expect(p50?.ms).toBe(12.3);
    expect(p50?.lower).toBeCloseTo(12.25, 9);
    expect(p50?.upper).toBeCloseTo(12.35, 9);
  });

  it('refuses an offset that is no number >= 0', () => {
    const text = `${HEADER8}\n0.0010,0.0001,0.0000,0.0000,0.0010,0.0000,200,-0.5000`;
    expect(thrown(() => decodeHeyCsv(text))).toMatchObject({ line: 2, field: 'offset' });
  });

  it('skips blank lines before the header and after it, and a header with trailing blanks', () => {
    const text = `\n  \n${HEADER8}  \n${row('0.0010', 200, '0.0000')}\n\n${row('0.0020', 200, '0.0010')}\n`;
    const [point] = decodeHeyCsv(text).results;
    expect(point?.requests).toBe(2);
    expect(point?.durationMs).toBe(3);
  });

  it('reads a file of the header alone as no request, no span', () => {
    const [point] = decodeHeyCsv(`${HEADER8}\n`).results;
    expect(point).toMatchObject({ requests: 0, durationMs: null, errors: 0, minMs: null });
    expect(point?.labels).toEqual({ tool: 'hey' });
  });

  it('refuses a stream with no header at all', () => {
    const agg = new HeyCsvAggregator();
    agg.write('\n');
    expect(thrown(() => agg.end())).toMatchObject({ problem: 'empty' });
  });

  it('names the columns it does not map, and the header it expected', () => {
    const { unmapped } = decodeHeyCsv(`${HEADER8}\n${row('0.0010', 200, '0.0000')}`);
    expect(unmapped).toEqual([
      'DNS+dialup',
      'DNS',
      'Request-write',
      'Response-delay',
      'Response-read',
    ]);
    expect(thrown(() => decodeHeyCsv('status,latency\n')).message).toContain(HEADER8);
  });

  it('tells each header generation, and nothing more or less', () => {
    expect(isHeyCsvHeader(HEADER8)).toBe(true);
    expect(isHeyCsvHeader(HEADER8.replace(',offset', ''))).toBe(true);
    expect(isHeyCsvHeader(HEADER8.replace(',status-code,offset', ''))).toBe(true);
    expect(isHeyCsvHeader(` ${HEADER8}\r`)).toBe(true);
    expect(isHeyCsvHeader(`${HEADER8},x`)).toBe(false);
    expect(isHeyCsvHeader('response-time,DNS+dialup')).toBe(false);
    expect(isHeyCsvHeader('')).toBe(false);
  });
});
