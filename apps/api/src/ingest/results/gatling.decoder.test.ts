import { describe, expect, it } from 'vitest';
import { sniff } from './detect.ts';
import { decodeGatlingLog } from './gatling.decoder.ts';
import { decodeResults } from './index.ts';
import type { ResultFileError } from './result-file-error.ts';
import { publicFixture } from './test-fixtures.ts';

// gatling/gatling's own test files (fixtures/public/gatling/PROVENANCE.md).
const text = publicFixture('gatling/single_node_with_known_stats-simulation.log');
const binary = publicFixture('gatling/known_stats-binary-simulation.log');

const thrown = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as ResultFileError;
  }
  throw new Error('did not throw');
};

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
