// Result files that once cost quadratic time or unbounded work: each is answered (or
// refused) as it should be. Their time, beside a linear pass over the same text, is
// bench/parse-bounds's.
import { describe, expect, it } from 'vitest';
import { detectFormat, SNIFF_CHARS, sniff } from './detect.ts';
import { MAX_HISTOGRAM_BUCKETS } from './fortio.decoder.ts';
import { decodeResults } from './index.ts';
import { localFixture, publicFixture, rejected } from './test-fixtures.ts';
import { MAX_PERCENTILES_PER_RESULT, MAX_RESULTS_PER_FILE, toNumber, Unmapped } from './values.ts';
import { decodeWrk2 } from './wrk2.decoder.ts';

describe('bounded result parsing', () => {
  it('reads a long run of digits (once quadratic: bench/parse-bounds times it)', async () => {
    // `\d+\.?\d*` took 50 ms for 8000 digits and grows with the square of the length.
    const digits = '1'.repeat(1_000_000);
    const err = await rejected(() => toNumber(`${digits}x`, { field: 'f' }));
    expect(err.field).toBe('f');
    const report = `${localFixture('wrk2-readme-latency.txt')}\n${digits} ${digits}x 1 x\n`;
    const value = decodeWrk2(report);
    expect(value.unmapped.some((u) => u.startsWith('line '))).toBe(true);
  });

  it('lists at most Unmapped.MAX unmapped names, then how many more', async () => {
    const junk = Array.from({ length: 5000 }, (_, i) => `junk line ${i}`).join('\n');
    const value = decodeWrk2(`${localFixture('wrk2-readme-latency.txt')}\n${junk}\n`);
    expect(value.unmapped).toHaveLength(Unmapped.MAX + 1);
    expect(value.unmapped.at(-1)).toMatch(/^… and \d+ more$/);
  });

  it('tells the kind from the first 64 KiB only', async () => {
    const wrk = localFixture('wrk2-readme-basic.txt');
    expect(sniff(wrk)).toBe('wrk2');
    // The same report behind 64 KiB of other text is not looked for.
    expect(sniff(`${'x'.repeat(SNIFF_CHARS)}\n${wrk}`)).toBeNull();
    expect(await detectFormat(`${'#'.repeat(SNIFF_CHARS)}\nresults:\n  - counters: []\n`)).toBe(
      null,
    );
  });

  it('refuses text that is no result without parsing it, whatever its size', async () => {
    // 30 MB of YAML-looking text: once parsed whole as YAML (heap out of memory).
    const big = 'key: value\n'.repeat(3_000_000);
    const value = await rejected(() => decodeResults(big));
    expect(value.problem).toBe('undetectable');
  });

  it('refuses a YAML-looking result past the YAML limit before parsing it', async () => {
    const big = `latencies_ms:\n${'  p50: 1\n'.repeat(300_000)}`;
    const value = await rejected(() => decodeResults(big));
    expect(value.problem).toBe('too_large');
  });

  it(`refuses a CSV of more than ${MAX_RESULTS_PER_FILE} rows at the first row past it`, async () => {
    const [header, row] = publicFixture('istio-tools/benchmark.csv').split('\n') as [
      string,
      string,
    ];
    const csv = `${header}\n${`${row}\n`.repeat(MAX_RESULTS_PER_FILE + 1)}`;
    const err = await rejected(() => decodeResults(csv));
    expect(err).toMatchObject({ problem: 'too_large', line: MAX_RESULTS_PER_FILE + 2 });
  });

  it('refuses a Fortio histogram of more buckets than Fortio can write, naming it', async () => {
    const data = Array.from({ length: MAX_HISTOGRAM_BUCKETS + 1 }, (_, i) => ({
      Start: i / 1e3,
      End: (i + 1) / 1e3,
      Percent: 0,
      Count: 1,
    }));
    const text = JSON.stringify({ DurationHistogram: { Count: data.length, Data: data } });
    const err = await rejected(() => decodeResults(text));
    expect(err).toMatchObject({ problem: 'too_large', field: 'DurationHistogram.Data' });
  });

  it('refuses a result stating more percentiles than any tool writes', async () => {
    const latency = Object.fromEntries(
      Array.from({ length: MAX_PERCENTILES_PER_RESULT + 1 }, (_, i) => [`p(${i / 20})`, i]),
    );
    const text = JSON.stringify({ metrics: { http_req_duration: latency } });
    const err = await rejected(() => decodeResults(text));
    expect(err.problem).toBe('too_large');
    expect(err.message).toContain(String(MAX_PERCENTILES_PER_RESULT));
  });
});
