// Test-only: Vegeta's binary results written by Go's own encoding/gob with Vegeta's own Result
// struct (fixtures/generated/vegeta-gob: the program, its command and its output), and the
// load result they must give, recomputed from the samples Go printed beside each file.
import { readFileSync } from 'node:fs';
import type { LoadResult } from '@meshbench/schema';
import { expect } from 'vitest';

const DIR = new URL('../../../../../fixtures/generated/vegeta-gob/', import.meta.url);

export interface GoSample {
  startNs: bigint;
  latencyNs: number;
  code: number;
}

/** NAME.gob as Go wrote it, and NAME.samples.tsv (start ns, latency ns, code per result). */
export function goVegeta(name: string): { gob: Buffer; samples: GoSample[] } {
  const tsv = readFileSync(new URL(`${name}.samples.tsv`, DIR), 'utf8');
  const samples = tsv
    .split('\n')
    .slice(1)
    .filter((l) => l !== '')
    .map((l) => {
      const [start, latency, code] = l.split('\t');
      return { startNs: BigInt(start as string), latencyNs: Number(latency), code: Number(code) };
    });
  return { gob: readFileSync(new URL(`${name}.gob`, DIR)), samples };
}

export const GO_VEGETA_FILES = [
  'ocm-api-load-results',
  'e2e-2019-results',
  'loadgentest-2016-results',
  'synthetic-2000',
] as const;

/**
 * `point` equals what the raw samples give: requests, errors by code (a success is 200-399,
 * vegeta lib/metrics.go), start and duration to the us, rate, min, max and each percentile at
 * the nearest rank over the latencies in whole us (truncated), within [v, v + 1 us].
 */
export function expectVegetaRecomputed(point: LoadResult | undefined, samples: GoSample[]): void {
  const us = samples.map((s) => Math.floor(s.latencyNs / 1000));
  const sorted = [...us].sort((a, b) => a - b);
  const startsUs = samples.map((s) => Number(s.startNs / 1000n));
  const first = Math.min(...startsUs);
  const last = Math.max(...startsUs.map((s, i) => s + (us[i] as number)));
  const errorsByCode: Record<string, number> = {};
  for (const s of samples) {
    if (s.code < 200 || s.code >= 400)
      errorsByCode[String(s.code)] = (errorsByCode[String(s.code)] ?? 0) + 1;
  }
  const ms = (u: number) => Number((u * 0.001).toPrecision(12));
  expect(point).toMatchObject({
    requests: samples.length,
    errors: Object.values(errorsByCode).reduce((a, b) => a + b, 0),
    errorsByCode,
    minMs: ms(sorted[0] as number),
    maxMs: ms(sorted.at(-1) as number),
    durationMs: (last - first) / 1000,
  });
  // Stored with microseconds: the first start, to the us.
  const started = point?.startedAt ?? '';
  expect(Date.parse(started) * 1000 + Number(/\.\d{3}(\d{3})/.exec(started)?.[1] ?? 0)).toBe(first);
  expect(point?.achievedRps).toBeCloseTo(samples.length / ((last - first) / 1e6), 6);
  expect(point?.percentiles.length).toBeGreaterThan(0);
  for (const q of point?.percentiles ?? []) {
    const v = sorted[
      Math.ceil((Math.round(q.p * 10000) * sorted.length) / 1_000_000) - 1
    ] as number;
    expect(q).toEqual({
      p: q.p,
      ms: ms(v),
      exact: false,
      method: 'raw',
      lower: ms(v),
      upper: ms(v + 1),
    });
  }
}
