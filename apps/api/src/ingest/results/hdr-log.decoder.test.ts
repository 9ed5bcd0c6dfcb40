import {
  build,
  decodeFromCompressedBase64,
  encodeIntoCompressedBase64,
  type Histogram,
  HistogramLogReader,
  type JsHistogram,
} from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { nearestRank } from '../../domain/bucket-percentiles.ts';
import { decodeHdr } from '../../domain/hdr.ts';
import { mergeSteps } from '../../domain/load-steps.ts';
import { decodeHdrLog, linesOf } from './hdr-log.decoder.ts';
import { writeHdrLog } from './hdr-log.test-fixtures.ts';
import { decodeResultFile, intervalResultRow, ResultFileError } from './index.ts';
import { publicFixture } from './test-fixtures.ts';

// Through publicFixture: found from Stryker's sandbox too.
const upstream = (name: string) => publicFixture(`hdrhistogram/${name}`);

const START = Date.UTC(2026, 10, 26, 12, 0, 0);

const rejected = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ResultFileError) return error;
    throw error;
  }
  throw new Error('not rejected');
};

describe('HdrHistogram interval logs', () => {
  it("reads jHiccup's log as HdrHistogramJS's own reader does", async () => {
    const text = upstream('jHiccup-2.0.7S.logV2.hlog');
    const decoded = await decodeResultFile(text, 'auto', {});
    expect(decoded.format).toBe('hdr-log');
    if (!decoded.intervals) throw new Error('not intervals');
    // The reference: HistogramLogReader on the same text (relative times placed at StartTime).
    const reader = new HistogramLogReader(text);
    const expected: { start: number; end: number; count: number }[] = [];
    // Added into the first interval's histogram: the log's own structure (jHiccup: lowest 20 us).
    const first = reader.nextIntervalHistogram() as Histogram;
    const all = first;
    for (let h: Histogram | null = first; h; h = reader.nextIntervalHistogram()) {
      expected.push({ start: h.startTimeStampMsec, end: h.endTimeStampMsec, count: h.totalCount });
      if (h !== first) all.add(h);
    }
    const [step] = decoded.results;
    expect(decoded.results).toHaveLength(1);
    expect(step?.mode).toBe('unspecified');
    // jHiccup records nanoseconds and writes Interval_Max in ms (ratio 1e6).
    expect(step?.hdrUnit).toBe('ns');
    expect(step?.intervals.map((i) => i.count)).toEqual(expected.map((e) => e.count));
    step?.intervals.forEach((i, k) => {
      expect(i.startMs).toBeCloseTo(expected[k]?.start as number, 6);
      // The reference subtracts two epoch ms in floating point: equal to 2 decimals.
      expect(i.durationMs).toBeCloseTo(
        (expected[k]?.end as number) - (expected[k]?.start as number),
        2,
      );
    });
    const row = intervalResultRow(step as NonNullable<typeof step>);
    expect(row.result.requests).toBe(all.totalCount);
    const p99 = row.result.percentiles.find((p) => p.p === 99);
    expect(p99?.ms).toBe(all.getValueAtPercentile(99) / 1e6);
    // jHiccup keeps 2 significant digits: within 1 %.
    expect(first.numberOfSignificantValueDigits).toBe(2);
    expect(p99).toMatchObject({ exact: false, method: 'hdr', relativeError: 0.01 });
  });

  it('reads a tagged log as one step per tag', () => {
    const decoded = decodeHdrLog(upstream('tagged-Log.logV2.hlog'), { generator: 'g1' });
    // tagged-Log: the same 21 intervals untagged and tagged A.
    expect(decoded.results.map((r) => [r.mode, r.generator, r.intervals.length])).toEqual([
      ['unspecified', 'g1', 21],
      ['A', 'g1', 21],
    ]);
  });

  it('decodes counts exactly as hdr-histogram-js does', () => {
    const log = writeHdrLog({ seed: 7, startMs: START, intervals: 5, perInterval: 3000 });
    const lines = log.text.split('\n').filter((l) => /^\d/.test(l));
    for (const line of lines) {
      const b64 = line.split(',')[3] as string;
      const ours = decodeHdr(Buffer.from(b64, 'base64'));
      const theirs = decodeFromCompressedBase64(b64, 64) as JsHistogram;
      expect(ours.total).toBe(theirs.totalCount);
      const expected = Array.from({ length: theirs.countsArrayLength }, (_, i) =>
        theirs.getCountAtIndex(i),
      );
      expect(
        Array.from({ length: theirs.countsArrayLength }, (_, i) => ours.counts[i] ?? 0),
      ).toEqual(expected);
    }
  });

  it('merges generators into the histogram of the union of their samples', () => {
    const logs = [1, 2, 3].map((seed) =>
      writeHdrLog({
        seed,
        startMs: START,
        intervals: 10,
        perInterval: 2000,
        medianUs: 1500 + 500 * seed,
      }),
    );
    const rows = logs.map((log, g) => {
      const decoded = decodeHdrLog(log.text, {
        mode: 'both',
        connections: 64,
        targetRps: 6000,
        generator: `g${g}`,
      });
      const step = decoded.results[0];
      if (!step) throw new Error('no step');
      expect(step.hdrUnit).toBe('us');
      return { ...intervalResultRow(step), g };
    });
    const ps = [50, 90, 99, 99.9, 100];
    const [merged] = mergeSteps(
      rows.map((r, k) => ({
        id: k + 1,
        generator: r.generator,
        ...r.result,
        hdr: r.hdr,
      })),
      ps,
    );
    const union = logs.flatMap((l) => l.values);
    // The reference: hdr-histogram-js recording every raw value directly.
    const direct = build({ bitBucketSize: 64, numberOfSignificantValueDigits: 3 }) as JsHistogram;
    for (const v of union) direct.recordValue(v);
    expect(merged?.requests).toBe(union.length);
    const sorted = [...union].sort((a, b) => a - b);
    for (const q of merged?.percentiles ?? []) {
      expect(q.ms).toBe(direct.getValueAtPercentile(q.p) / 1000);
      const exact = (sorted[nearestRank(q.p, sorted.length) - 1] as number) / 1000;
      expect(q.lower).toBeLessThanOrEqual(exact);
      expect(q.upper).toBeGreaterThanOrEqual(exact);
      expect(Math.abs(q.ms - exact) / exact).toBeLessThanOrEqual(q.relativeError as number);
    }
    // The merged counts, bucket by bucket, are those of the direct histogram.
    const mergedCounts = decodeHdr(
      Buffer.from(
        // the stored whole-step histograms, added
        (() => {
          const acc = build({ bitBucketSize: 64 });
          for (const r of rows)
            acc.add(decodeFromCompressedBase64(Buffer.from(r.hdr).toString('base64'), 64));
          return encodeIntoCompressedBase64(acc);
        })(),
        'base64',
      ),
    );
    const expected = Array.from({ length: direct.countsArrayLength }, (_, i) =>
      direct.getCountAtIndex(i),
    );
    expect(
      Array.from({ length: direct.countsArrayLength }, (_, i) => mergedCounts.counts[i] ?? 0),
    ).toEqual(expected);
    // Achieved RPS summed: 3 x 2000 requests a second for 10 s.
    expect(merged?.achievedRps).toBeCloseTo(6000, 6);
    expect(merged?.generators.map((g) => g.shortfall)).toEqual([false, false, false]);
  });

  it('flags a generator short of its share and one saturated', () => {
    const full = writeHdrLog({ seed: 4, startMs: START, intervals: 3, perInterval: 1000 });
    const short = writeHdrLog({ seed: 5, startMs: START, intervals: 3, perInterval: 900 });
    const rows = [
      decodeHdrLog(full.text, { targetRps: 2000, generator: 'a', generatorCpu: 0.97 }),
      decodeHdrLog(short.text, { targetRps: 2000, generator: 'b' }),
    ].map((d, k) => {
      const r = intervalResultRow(d.results[0] as (typeof d.results)[0]);
      return { id: k, generator: r.generator, ...r.result, hdr: r.hdr };
    });
    const [merged] = mergeSteps(rows, [50]);
    // Share 1000 RPS each: b achieved 900 (10 % short), a 1000 but at 97 % CPU.
    expect(merged?.generators).toEqual([
      { name: 'a', achievedRps: 1000, shortfall: false, saturated: true },
      { name: 'b', achievedRps: 900, shortfall: true, saturated: false },
    ]);
  });

  describe('rejects', () => {
    const log = writeHdrLog({ seed: 9, startMs: START, intervals: 3, perInterval: 100 }).text;
    const lines = log.split('\n');
    const first = lines.findIndex((l) => /^\d/.test(l));
    const withLine = (line: string, at = first) =>
      lines.map((l, i) => (i === at ? line : l)).join('\n');

    it('a histogram that is not base64', () => {
      const fields = (lines[first] as string).split(',');
      const err = rejected(() =>
        decodeHdrLog(withLine([...fields.slice(0, 3), 'HIST*notbase64'].join(','))),
      );
      expect(err).toMatchObject({
        problem: 'invalid_histogram',
        line: first + 1,
        field: 'Interval_Compressed_Histogram',
      });
    });

    it('a histogram cut short', () => {
      const fields = (lines[first] as string).split(',');
      const cut = (fields[3] as string).slice(0, 24);
      const err = rejected(() => decodeHdrLog(withLine([...fields.slice(0, 3), cut].join(','))));
      expect(err).toMatchObject({ problem: 'invalid_histogram', line: first + 1 });
    });

    it('a truncated line', () => {
      const fields = (lines[first] as string).split(',');
      const err = rejected(() => decodeHdrLog(withLine(fields.slice(0, 2).join(','))));
      expect(err).toMatchObject({ problem: 'truncated', line: first + 1 });
    });

    it('intervals out of order', () => {
      const a = lines[first] as string;
      const b = lines[first + 1] as string;
      const swapped = lines.map((l, i) => (i === first ? b : i === first + 1 ? a : l)).join('\n');
      const err = rejected(() => decodeHdrLog(swapped));
      expect(err).toMatchObject({
        problem: 'invalid_value',
        line: first + 2,
        field: 'StartTimestamp',
      });
    });

    it('relative times with no StartTime', () => {
      const noStart = lines.filter((l) => !l.startsWith('#[StartTime')).join('\n');
      const err = rejected(() => decodeHdrLog(noStart));
      expect(err).toMatchObject({ problem: 'invalid_value', field: 'StartTimestamp' });
    });

    it('a Tag that names an unknown key', () => {
      const err = rejected(() => decodeHdrLog(withLine(`Tag=speed:9,${lines[first]}`)));
      expect(err).toMatchObject({ problem: 'invalid_value', line: first + 1, field: 'Tag' });
    });
  });
});

describe('linesOf', () => {
  it('gives the lines split at CRLF, CR and LF, as one split of the text does', () => {
    for (const text of [
      '',
      'a',
      'a\n',
      '\n',
      'a\r\nb\rc\nd',
      'a\r\rb\n\r\nc\r',
      '\r\n\r\n',
      'x\n\ny',
    ]) {
      // The reference: what text.split, which the decoder used before, gives.
      expect([...linesOf(text)]).toEqual(text.split(/\r\n|\r|\n/));
    }
    expect([...linesOf('a\r\nb\rc\nd')]).toEqual(['a', 'b', 'c', 'd']);
    expect([...linesOf('a\r\rb\n\r\nc\r')]).toEqual(['a', '', 'b', '', 'c', '']);
  });
});
