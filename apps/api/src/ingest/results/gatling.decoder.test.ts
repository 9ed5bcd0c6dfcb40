import { describe, expect, it } from 'vitest';
import { sniff } from './detect.ts';
import { decodeGatlingLog, GatlingLogAggregator, isGatlingRunLine } from './gatling.decoder.ts';
import { decodeResults } from './index.ts';
import { publicFixture, thrown } from './test-fixtures.ts';

// gatling/gatling's own test files (fixtures/public/gatling/PROVENANCE.md).
const text = publicFixture('gatling/single_node_with_known_stats-simulation.log');
const binary = publicFixture('gatling/known_stats-binary-simulation.log');

describe("Gatling's simulation.log", () => {
  it('is told by its RUN record', async () => {
    expect(sniff(text)).toBe('gatling');
    expect((await decodeResults(text)).format).toBe('gatling');
  });

  it("counts each REQUEST's end - start in whole ms, +-1 ms", () => {
    const [point] = decodeGatlingLog(text).results;
    // The file's 8 REQUEST records (end - start): 2000, 9000, 4000, 4000, 4000, 5000, 5000, 7000 ms.
    expect(point).toMatchObject({
      requests: 8,
      errors: 0,
      minMs: 2000,
      maxMs: 9000,
      durationMs: 14000 - 1000,
      startedAt: new Date(1000).toISOString(),
      labels: {
        tool: 'gatling',
        simulation: 'MySimulation',
        gatlingVersion: '2.0',
        request: 'Test Request',
      },
    });
    // Sorted: 2000 4000 4000 4000 5000 5000 7000 9000; nearest rank of P50 = ceil(4) = 4th.
    expect(point?.percentiles.find((p) => p.p === 50)).toEqual({
      p: 50,
      ms: 4000,
      exact: false,
      method: 'raw',
      lower: 3999,
      upper: 4001,
    });
    // P90: ceil(7.2) = 8th.
    expect(point?.percentiles.find((p) => p.p === 90)?.ms).toBe(9000);
  });

  it('counts KO requests as errors, keyed by their message', () => {
    const ko = text
      .replace(
        /\tOK\tRequest executed successfully\n/,
        '\tKO\tstatus.find.is(200), but actually found 500\n',
      )
      .replace(
        /(REQUEST\t\tTest Request\t2000\t6000\t)OK\tRequest executed successfully/,
        '$1KO\t ',
      );
    const [point] = decodeGatlingLog(ko).results;
    expect(point).toMatchObject({
      requests: 8,
      errors: 2,
      errorsByCode: { 'status.find.is(200), but actually found 500': 1, KO: 1 },
    });
  });

  it('refuses a bad record by line, and the binary log of 3.13 on by name', async () => {
    const bad = thrown(() => decodeGatlingLog(text.replace('\t4000\t8000\t', '\t8000\t4000\t')));
    expect(bad.problem).toBe('invalid_line');
    expect(bad.message).toMatch(/^line 7: endTimestamp/);
    const cells = thrown(() =>
      decodeGatlingLog(text.replace('\t5000\t10000\tOK', '\t5000\t10000')),
    );
    expect(cells.message).toMatch(/^line 8: a REQUEST record has 6 cells/);
    expect(thrown(() => decodeGatlingLog('REQUEST\t\ta\t1\t2\tOK\t \n')).message).toMatch(
      /^line 1: not the RUN record/,
    );
    expect(sniff(binary)).toBe('gatling');
    await expect(decodeResults(binary)).rejects.toMatchObject({
      problem: 'invalid_line',
      message: expect.stringMatching(/binary simulation\.log \(Gatling 3\.13 or later\)/),
    });
  });
});

// Records as gatling-core LogFileDataWriter.scala (v3.12.0) serializes them: the header, a tab,
// then RunMessageSerializer's simulationClassName, simulationId, start, runDescription (" "
// when empty), gatlingVersion, or ResponseMessageSerializer's groups, name, startTimestamp,
// endTimestamp, status.name (OK/KO), message (" " when none); USER START/END and GROUP,
// ERROR, ASSERTION records are written too, and not counted.
const RUN = 'RUN\tcom.example.BasicSimulation\tbasicsimulation-20240101\t1700000000000\t \t3.12.0';
const request = (name: string, start: number, end: number, status = 'OK', message = ' ') =>
  `REQUEST\t\t${name}\t${start}\t${end}\t${status}\t${message}`;

describe("Gatling's text simulation.log, record by record (LogFileDataWriter.scala)", () => {
  it('counts REQUEST records only, skipping USER, GROUP, ERROR, ASSERTION and blank lines', () => {
    const log = [
      RUN,
      'USER\tscn\tSTART\t1700000000000',
      '',
      request('home', 1700000000010, 1700000000030),
      'GROUP\tg\t1700000000010\t1700000000030\t20\tOK',
      'ERROR\tboom\t1700000000031',
      request('home', 1700000000020, 1700000000020),
      'USER\tscn\tEND\t1700000000040',
      'ASSERTION\tx',
    ].join('\n');
    const [point] = decodeGatlingLog(log).results;
    expect(point).toMatchObject({
      requests: 2,
      errors: 0,
      minMs: 0,
      maxMs: 20,
      durationMs: 20,
      labels: {
        tool: 'gatling',
        simulation: 'com.example.BasicSimulation',
        gatlingVersion: '3.12.0',
        request: 'home',
      },
    });
    expect(decodeGatlingLog(log).unmapped).toEqual([
      'groups',
      'USER',
      'GROUP',
      'ERROR',
      'ASSERTION',
    ]);
  });

  it('refuses a record of no known header, naming it and its line', () => {
    const junk = thrown(() => decodeGatlingLog(`${RUN}\nFOO\tbar`));
    expect(junk).toMatchObject({ problem: 'invalid_line', line: 2 });
    expect(junk.message).toContain('"FOO"');
    expect(junk.message).toContain('RUN, REQUEST, USER, GROUP, ERROR, ASSERTION');
    // No tab at all: the whole line is its header.
    expect(thrown(() => decodeGatlingLog(`${RUN}\n\nJUNK`)).message).toMatch(/^line 3: "JUNK"/);
    expect(thrown(() => decodeGatlingLog(`${RUN}\nREQUEST`)).message).toMatch(
      /^line 2: a REQUEST record has 1 cells/,
    );
  });

  it('refuses timestamps that are not whole ms, or an end before the start', () => {
    for (const [start, end] of [
      ['1000.5', '2000'],
      ['1000', '2000.5'],
      ['2000', '1999'],
    ]) {
      const e = thrown(() => decodeGatlingLog(`${RUN}\nREQUEST\t\tr\t${start}\t${end}\tOK\t `));
      expect(e).toMatchObject({ problem: 'invalid_line', line: 2, field: 'endTimestamp' });
    }
    expect(thrown(() => decodeGatlingLog(`${RUN}\nREQUEST\t\tr\tx\t2000\tOK\t `))).toMatchObject({
      field: 'startTimestamp',
    });
  });

  it('refuses a status other than OK or KO', () => {
    for (const status of ['ok', 'FAILED', '']) {
      expect(thrown(() => decodeGatlingLog(`${RUN}\n${request('r', 1, 2, status)}`))).toMatchObject(
        {
          problem: 'invalid_line',
          line: 2,
          field: 'status',
        },
      );
    }
  });

  it('labels neither simulation nor version when the RUN record leaves them empty', () => {
    const run = 'RUN\t\tid\t1700000000000\t \t';
    const [point] = decodeGatlingLog(`${run}\n${request('r', 1, 2)}`).results;
    expect(point?.labels).toEqual({ tool: 'gatling', request: 'r' });
  });

  it('refuses a log of a RUN record alone, and a stream that never had one', () => {
    expect(thrown(() => decodeGatlingLog(`${RUN}\n`))).toMatchObject({ problem: 'no_results' });
    const agg = new GatlingLogAggregator();
    agg.write('\n');
    expect(thrown(() => agg.end())).toMatchObject({ problem: 'empty' });
  });

  it('tells the RUN record by its six tab-separated cells and a start of whole ms', () => {
    expect(isGatlingRunLine(RUN)).toBe(true);
    expect(isGatlingRunLine('RUN\t\t\t1\t\t')).toBe(true);
    expect(isGatlingRunLine('RUN\ta\tb\t123456789012345\tc\td')).toBe(true);
    expect(isGatlingRunLine('RUN\ta\tb\t1234567890123456\tc\td')).toBe(false);
    expect(isGatlingRunLine('RUN\ta\tb\t\tc\td')).toBe(false);
    expect(isGatlingRunLine('RUN\ta\tb\t12x\tc\td')).toBe(false);
    expect(isGatlingRunLine('RUN\ta\tb\t12\tc')).toBe(false);
    expect(isGatlingRunLine('RUN\ta\tb\t12\tc\td\te')).toBe(false);
    expect(isGatlingRunLine('RUN\ta\tb\tc\t12\tc\td')).toBe(false);
    expect(isGatlingRunLine('xRUN\ta\tb\t12\tc\td')).toBe(false);
    expect(isGatlingRunLine('RUN a\tb\t12\tc\td')).toBe(false);
  });
});
