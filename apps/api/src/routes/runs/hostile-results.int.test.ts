// Hostile result files: HdrHistogram interval logs whose histograms claim more than their own
// header allows (a run of zeros past highestTrackableValue, a deflate bomb) are refused whole
// with a 400 naming the line and field, and leave the run's rows as they were.
import { apiError, importResultsResponse } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { zeroCountsBomb, zeroRunHistogram } from '../../domain/hdr-hostile.test-fixtures.ts';
import { writeHdrLog } from '../../ingest/results/hdr-log.test-fixtures.ts';
import { backends, createRun, useServer } from '../../test/harness.ts';
import { rowsOfRun } from '../../test/rows-of-run.ts';

const START = Date.UTC(2026, 10, 26, 13, 0, 0);

/** A log hdr-histogram-js wrote, its last interval's histogram replaced by `histogram`. */
function withLastHistogram(intervals: number, histogram: Buffer): { text: string; line: number } {
  const lines = writeHdrLog({ seed: 7, startMs: START, intervals, perInterval: 3 }).text.split(
    '\n',
  );
  const last = lines.findLastIndex((l) => /^\d/.test(l));
  const fields = (lines[last] as string).split(',');
  lines[last] = [...fields.slice(0, 3), histogram.toString('base64')].join(',');
  return { text: lines.join('\n'), line: last + 1 };
}

describe.each(backends)('hostile interval logs on $name', (backend) => {
  const server = useServer(backend);
  const post = (runId: string, body: string) =>
    server.json(
      `/runs/${runId}/results?generator=g`,
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body },
      z.union([importResultsResponse, apiError]),
    );

  const cases: [string, () => { text: string; line: number }, number, RegExp][] = [
    [
      'a 2e8-zero run in a small log',
      () => withLastHistogram(1, zeroRunHistogram(200_000_000)),
      1024,
      /past the 13312 .*highestTrackableValue 3600000/,
    ],
    [
      'a 32 MB payload in a 1 MB log',
      () => withLastHistogram(9_000, zeroCountsBomb(32 * 2 ** 20)),
      2 ** 20 + 2 ** 17,
      /payload length 33554432/,
    ],
  ];
  it.each(cases)('%s is a 400 naming the line and field', async (_name, make, maxBytes, why) => {
    const run = await createRun(server);
    const { text, line } = make();
    expect(Buffer.byteLength(text)).toBeLessThan(maxBytes);
    const before = await rowsOfRun(server.app.database, run.id);
    const posted = await post(run.id, text);
    expect(posted.status).toBe(400);
    expect(posted.body).toMatchObject({
      code: 'invalid_histogram',
      line,
      field: 'Interval_Compressed_Histogram',
    });
    expect((posted.body as { message: string }).message).toMatch(new RegExp(`line ${line}`));
    expect((posted.body as { message: string }).message).toMatch(why);
    expect(await rowsOfRun(server.app.database, run.id)).toEqual(before);
  });
});
