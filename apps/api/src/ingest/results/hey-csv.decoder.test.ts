import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sniff } from './detect.ts';
import { decodeHeyCsv } from './hey-csv.decoder.ts';
import { decodeResults } from './index.ts';
import type { ResultFileError } from './result-file-error.ts';

// Written by Debian's hey 0.1.4 (fixtures/README.md): 50 requests, 8 columns.
const real = readFileSync(new URL('./fixtures/hey-0.1.4-debian.csv', import.meta.url), 'utf8');

const thrown = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as ResultFileError;
  }
  throw new Error('did not throw');
};

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
