import { describe, expect, it } from 'vitest';
import { sniff } from './detect.ts';
import { decodeResults } from './index.ts';
import {
  decodeJmeterCsv,
  isJmeterCsvHeader,
  isJmeterCsvSample,
  JmeterCsvAggregator,
} from './jmeter-csv.decoder.ts';
import type { ResultFileError } from './result-file-error.ts';
import { publicFixture, thrown } from './test-fixtures.ts';

// JMeter's own report-generator test files (fixtures/public/apache-jmeter/PROVENANCE.md).
const report = publicFixture('apache-jmeter/HTMLReportTestFile.csv');
const allFailed = publicFixture('apache-jmeter/HTMLReportFalseTestFile.csv');

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

describe('JMeter JTL CSV: the unquoted fast path', () => {
  /** mulberry32, so the fuzz is the same every run. */
  const random = (seed: number) => {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  };
  const outcome = (text: string) => {
    try {
      return decodeJmeterCsv(text);
    } catch (e) {
      const err = e as ResultFileError;
      return { problem: err.problem, line: err.line, field: err.field };
    }
  };
  // Quoting a cell changes nothing JMeter means, and sends every line down the quoted path.
  const quoteThird = (line: string) =>
    line
      .split(',')
      .map((c, i) => (i === 2 ? `"${c}"` : c))
      .join(',');

  it('reads 2,000 seeded files as the quoted (cell-by-cell) path reads them', () => {
    const next = random(30);
    const header = report.split('\n')[0] as string;
    const rows = report.trim().split('\n').slice(1);
    for (let file = 0; file < 2000; file++) {
      const lines = Array.from({ length: 1 + Math.floor(next() * 6) }, () => {
        const cells = (rows[Math.floor(next() * rows.length)] as string).split(',');
        const r = next();
        if (r < 0.1) cells.splice(Math.floor(next() * cells.length), 1);
        else if (r < 0.2) cells.splice(Math.floor(next() * cells.length), 0, 'x');
        else if (r < 0.3)
          cells[1] = ['', '-1', '2.5', '7e1', ' 3'][Math.floor(next() * 5)] as string;
        else if (r < 0.4) cells[7] = ['false', 'TRUE', ''][Math.floor(next() * 3)] as string;
        else if (r < 0.5) cells[0] = '2019/03/05 11:00:27.191';
        return cells.join(',');
      });
      const plain = `${header}\n${lines.join('\n')}\n`;
      const quoted = `${header}\n${lines.map(quoteThird).join('\n')}\n`;
      expect(outcome(plain)).toEqual(outcome(quoted));
    }
  });
});

// Lines as apache/jmeter CSVSaveService (bb30edf) writes them: the saved columns in
// printableFieldNamesToString's order, the configured delimiter (default ",", "\t" allowed),
// success "true"/"false", timeStamp epoch ms (the default) or a formatted date when
// jmeter.save.saveservice.timestamp_format is set.
describe('JMeter JTL CSV, column by column', () => {
  const header = 'timeStamp,elapsed,label,responseCode,success';

  it('spans from the earliest start to the latest end (timeStamp + elapsed), any row order', () => {
    const text = [
      header,
      '1700000000500,100,a,200,true',
      '1700000000000,50,a,200,true',
      '1700000000900,10,a,200,true',
      '1700000000600,400,a,200,true',
    ].join('\n');
    const [point] = decodeJmeterCsv(text).results;
    // 1700000000000 to 1700000000600 + 400.
    expect(point?.durationMs).toBe(1000);
    expect(point?.startedAt).toBe(new Date(1700000000000).toISOString());
    expect(point?.achievedRps).toBe(4);
    expect(point?.labels).toEqual({ tool: 'jmeter', label: 'a' });
  });

  it('gives no span for a formatted timeStamp, nor for a file without one', () => {
    const formatted = `${header}\n2024/01/01 00:00:00.000,100,a,200,true\n1700000000000,5,a,200,true`;
    expect(decodeJmeterCsv(formatted).results[0]).toMatchObject({
      requests: 2,
      durationMs: null,
      startedAt: null,
    });
    const untimed = 'elapsed,label,success\n100,a,true\n';
    expect(decodeJmeterCsv(untimed).results[0]).toMatchObject({
      durationMs: null,
      startedAt: null,
    });
  });

  it('counts success other than "true" as errors, by responseCode, "failed" when it has none', () => {
    const text = [
      header,
      '1700000000000,1,a,500,false',
      '1700000000000,1,a,,false',
      '1700000000000,1,a,200,true',
      '1700000000000,1,a,Non HTTP response code: java.net.SocketException,false',
    ].join('\n');
    const [point] = decodeJmeterCsv(text).results;
    expect(point?.errors).toBe(3);
    expect(point?.errorsByCode).toEqual({
      '500': 1,
      failed: 1,
      'Non HTTP response code: java.net.SocketException': 1,
    });
    // No success column saved: no error count at all.
    expect(decodeJmeterCsv('timeStamp,elapsed\n1700000000000,1\n').results[0]?.errors).toBeNull();
  });

  it('keeps no label when the samples have several', () => {
    const text = `${header}\n1700000000000,1,a,200,true\n1700000000000,1,b,200,true\n1700000000000,1,c,200,true`;
    expect(decodeJmeterCsv(text).results[0]?.labels).toEqual({ tool: 'jmeter' });
  });

  it('reads a tab-delimited file (default_delimiter=\\t)', () => {
    const text = 'timeStamp\telapsed\tlabel\tsuccess\n1700000000000\t7\tx,y\tfalse\n';
    expect(decodeJmeterCsv(text).results[0]).toMatchObject({
      requests: 1,
      errors: 1,
      minMs: 7,
      labels: { label: 'x,y' },
    });
  });

  it('skips blank lines before the header and between samples', () => {
    const text = `\n \n${header}\n\n1700000000000,1,a,200,true\n\n1700000000000,2,a,200,true\n`;
    expect(decodeJmeterCsv(text).results[0]?.requests).toBe(2);
  });

  it('names the columns it does not map, among those the file has', () => {
    const text =
      'timeStamp,elapsed,label,responseCode,threadName,success,bytes,Latency,Connect\n1700000000000,1,a,200,t,true,1,1,0\n';
    expect(decodeJmeterCsv(text).unmapped).toEqual(['threadName', 'bytes', 'Latency', 'Connect']);
  });

  it('reads a quoted cell over several lines, "" as a quote, and a quoted last cell', () => {
    const text = [
      'timeStamp,elapsed,label,responseMessage,success',
      '1700000000000,3,a,"one',
      '',
      'three ""q""",true',
      '1700000000001,4,a,x,"false"',
    ].join('\n');
    expect(decodeJmeterCsv(text).results[0]).toMatchObject({ requests: 2, errors: 1, maxMs: 4 });
    const e = thrown(() => decodeJmeterCsv(`${text}\n1700000000002,5,a,"open,true\n\nmore`));
    expect(e).toMatchObject({ problem: 'truncated', line: 6 });
  });

  it('refuses a sample with more cells than the header, quoted or not', () => {
    expect(
      thrown(() => decodeJmeterCsv(`${header}\n1700000000000,1,a,200,true,extra`)),
    ).toMatchObject({
      problem: 'invalid_line',
      line: 2,
    });
    expect(
      thrown(() => decodeJmeterCsv(`${header}\n1700000000000,1,"a",200,true,extra`)),
    ).toMatchObject({ problem: 'invalid_line', line: 2 });
    expect(thrown(() => decodeJmeterCsv(`${header}\n1700000000000,,a,200,true`))).toMatchObject({
      field: 'elapsed',
    });
  });

  it('reads a headerless file of the 17 default columns (print_field_names=false)', () => {
    const row = '1700000000000,25,get,404,Not Found,t 1-1,text,false,,120,80,1,1,http://x/,20,0,5';
    const [point] = decodeJmeterCsv(`${row}\n${row.replace(',25,', ',35,')}`).results;
    expect(point).toMatchObject({ requests: 2, errors: 2, errorsByCode: { '404': 2 }, maxMs: 35 });
    expect(decodeJmeterCsv(row).unmapped).toEqual([
      'responseMessage',
      'threadName',
      'dataType',
      'failureMessage',
      'bytes',
      'sentBytes',
      'grpThreads',
      'allThreads',
      'URL',
      'Latency',
      'IdleTime',
      'Connect',
    ]);
  });

  it('refuses an empty stream', () => {
    const agg = new JmeterCsvAggregator();
    agg.write('\n');
    expect(thrown(() => agg.end())).toMatchObject({ problem: 'empty' });
  });

  it('tells a header by "elapsed" with timeStamp or label, a sample by its epoch-ms start', () => {
    expect(isJmeterCsvHeader('elapsed,label')).toBe(true);
    expect(isJmeterCsvHeader('timeStamp\telapsed')).toBe(true);
    expect(isJmeterCsvHeader(' timeStamp,elapsed ')).toBe(true);
    expect(isJmeterCsvHeader('elapsed,success')).toBe(false);
    expect(isJmeterCsvHeader('timeStamp,label')).toBe(false);
    expect(isJmeterCsvHeader('timeStamp\telapsed,label')).toBe(false);
    expect(isJmeterCsvSample('1700000000000,5,')).toBe(true);
    expect(isJmeterCsvSample('999999999999,5,')).toBe(true);
    expect(isJmeterCsvSample('99999999999,5,')).toBe(false);
    expect(isJmeterCsvSample('17000000000000,5,')).toBe(false);
    expect(isJmeterCsvSample('1700000000000,,')).toBe(false);
    expect(isJmeterCsvSample('1700000000000,5')).toBe(false);
    expect(isJmeterCsvSample('x1700000000000,5,')).toBe(false);
  });
});
