import { describe, expect, it } from 'vitest';
import { sniff } from './detect.ts';
import { decodeResults } from './index.ts';
import { decodeJmeterCsv } from './jmeter-csv.decoder.ts';
import type { ResultFileError } from './result-file-error.ts';
import { publicFixture } from './test-fixtures.ts';

// JMeter's own report-generator test files (fixtures/public/apache-jmeter/PROVENANCE.md).
const report = publicFixture('apache-jmeter/HTMLReportTestFile.csv');
const allFailed = publicFixture('apache-jmeter/HTMLReportFalseTestFile.csv');

const thrown = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as ResultFileError;
  }
  throw new Error('did not throw');
};

/** The file read here with split and Number: the samples of a header file without quotes. */
function raw(text: string) {
  const [header, ...rows] = text.trim().split('\n');
  const names = (header as string).split(',');
  const cells = rows.map((r) => r.split(','));
  const col = (name: string) => cells.map((c) => c[names.indexOf(name)] as string);
  const elapsed = col('elapsed').map(Number);
  const starts = col('timeStamp').map(Number);
  return {
    sorted: [...elapsed].sort((a, b) => a - b),
    spanMs: Math.max(...starts.map((s, i) => s + (elapsed[i] as number))) - Math.min(...starts),
    failed: col('success').filter((s) => s === 'false').length,
    codes: col('responseCode').filter((_c, i) => col('success')[i] === 'false'),
  };
}

const nearestRank = (sorted: number[], p: number) =>
  sorted[Math.ceil((p / 100) * sorted.length) - 1] as number;

describe('JMeter JTL CSV', () => {
  it("reads JMeter's own test file as its raw samples say, whole ms within 1 ms", () => {
    const r = raw(report);
    const [point] = decodeJmeterCsv(report).results;
    expect(point?.requests).toBe(255);
    expect(point?.errors).toBe(r.failed);
    expect(point?.errorsByCode).toEqual({ '400': 3 });
    expect(r.codes).toEqual(['400', '400', '400']);
    expect(point?.durationMs).toBe(r.spanMs);
    expect(point?.achievedRps).toBeCloseTo(255 / (r.spanMs / 1000), 9);
    expect(point?.startedAt).toBe('2019-03-05T11:00:27.191Z');
    expect(point?.minMs).toBe(r.sorted[0]);
    expect(point?.maxMs).toBe(r.sorted.at(-1));
    for (const q of point?.percentiles ?? []) {
      const v = nearestRank(r.sorted, q.p);
      expect(q).toMatchObject({ ms: v, exact: false, method: 'raw', lower: v - 1, upper: v + 1 });
    }
  });

  it('is told by its header, or without one by its epoch-ms first cell', async () => {
    expect(sniff(report)).toBe('jmeter');
    expect((await decodeResults(report)).format).toBe('jmeter');
    const headerless = report.slice(report.indexOf('\n') + 1);
    expect(sniff(headerless)).toBe('jmeter');
    // Today's defaults with print_field_names=false: the same 17 columns, read the same.
    expect(decodeJmeterCsv(headerless)).toEqual(decodeJmeterCsv(report));
  });

  it("reads JMeter 2.x's headerless default columns (12)", () => {
    const v2 = [
      '1132021485561,1733,jakarta_home,200,OK,Thread Group 1-1,text,true,11400,1,1,1282',
      '1132021487294,511,jakarta_home,500,Internal Server Error,Thread Group 1-1,text,false,1200,1,1,201',
    ].join('\n');
    const [point] = decodeJmeterCsv(v2).results;
    expect(point).toMatchObject({
      requests: 2,
      errors: 1,
      errorsByCode: { '500': 1 },
      minMs: 511,
      maxMs: 1733,
      durationMs: 1132021487294 + 511 - 1132021485561,
      labels: { tool: 'jmeter', label: 'jakarta_home' },
    });
  });

  it('reads a header without responseCode, and quoted cells as JMeter quotes them', () => {
    const [point] = decodeJmeterCsv(allFailed).results;
    const r = allFailed.trim().split('\n').length - 1;
    expect(point).toMatchObject({ requests: r, errors: r, errorsByCode: { failed: r } });
    expect(point?.labels.label).toBe('Requête HTTP');
    const quoted = [
      'timeStamp,elapsed,label,responseCode,responseMessage,success',
      '1551783627191,12,"get, with ""quotes""",200,"two',
      'lines",true',
      '1551783627200,7,"get, with ""quotes""",503,busy,false',
    ].join('\r\n');
    expect(decodeJmeterCsv(quoted).results[0]).toMatchObject({
      requests: 2,
      errors: 1,
      errorsByCode: { '503': 1 },
      labels: { label: 'get, with "quotes"' },
      minMs: 7,
      maxMs: 12,
    });
  });

  it('refuses what JMeter does not write, naming the line', () => {
    const header = 'timeStamp,elapsed,label,success';
    expect(thrown(() => decodeJmeterCsv(`${header}\n1,2,x\n`))).toMatchObject({
      problem: 'invalid_line',
      line: 2,
    });
    expect(thrown(() => decodeJmeterCsv(`${header}\n1,2.5,x,true\n`))).toMatchObject({
      problem: 'invalid_line',
      field: 'elapsed',
    });
    expect(thrown(() => decodeJmeterCsv(`${header}\n1,2,"x,true\n`))).toMatchObject({
      problem: 'truncated',
      line: 2,
    });
    expect(thrown(() => decodeJmeterCsv('1551783627191,12,only,three,cells\n'))).toMatchObject({
      problem: 'invalid_line',
      line: 1,
    });
  });
});
