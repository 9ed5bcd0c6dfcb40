// Test-only: reads result files from the repo's public fixtures (fixtures/public, real
// runners' output) and from this folder's hand-written fixtures.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { ResultFileError } from './result-file-error.ts';
import { parseJson } from './values.ts';
import { parseYaml } from './yaml-bounded.ts';

// The nearest fixtures/public up from here: the repo's, also from a copy of apps/api placed
// deeper (Stryker's sandbox runs these tests from apps/api/.stryker-tmp/sandbox-*/).
const PUBLIC = (() => {
  for (let up = '../../../../../'; up.length < 60; up += '../') {
    const dir = new URL(`${up}fixtures/public/`, import.meta.url);
    if (existsSync(dir)) return dir;
  }
  throw new Error('no fixtures/public found above src/ingest/results');
})();
const LOCAL = new URL('./fixtures/', import.meta.url);

/** A file under fixtures/public, e.g. "istio-tools/benchmark.csv"; a `.gz` one decompressed. */
export function publicFixture(path: string): string {
  const bytes = readFileSync(new URL(path, PUBLIC));
  return (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
}

/** A file under ./fixtures. */
export function localFixture(name: string): string {
  return readFileSync(new URL(name, LOCAL), 'utf8');
}

/** Every data file of the public fixtures and of ./fixtures, as "dir/file" and "local/file". */
export function allFixtures(): Array<{ name: string; text: string }> {
  const out: Array<{ name: string; text: string }> = [];
  for (const dir of readdirSync(PUBLIC)) {
    for (const file of readdirSync(new URL(`${dir}/`, PUBLIC))) {
      if (file.endsWith('.md')) continue;
      out.push({ name: `${dir}/${file}`, text: publicFixture(`${dir}/${file}`) });
    }
  }
  for (const file of readdirSync(LOCAL)) {
    if (file.endsWith('.md')) continue;
    out.push({ name: `local/${file}`, text: localFixture(file) });
  }
  return out;
}

export const publicFixturesDir = fileURLToPath(PUBLIC);

/** A JSON or YAML file parsed as decodeResults parses it, for the document decoders. */
export async function documentOf(text: string): Promise<unknown> {
  return /^\uFEFF?\s*[[{]/.test(text) ? parseJson(text) : parseYaml(text);
}

/** What a synchronous decoder throws (its ResultFileError, as the cases expect); fails when nothing is thrown. */
export function thrown(fn: () => unknown): ResultFileError {
  try {
    fn();
  } catch (e) {
    return e as ResultFileError;
  }
  throw new Error('did not throw');
}

/** The ResultFileError a call throws (sync) or rejects with (async). */
export async function rejected(fn: () => unknown): Promise<ResultFileError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ResultFileError);
    return err as ResultFileError;
  }
  throw new Error('expected a ResultFileError');
}

/**
 * A Fortio run that sent nothing, in the layout of fortio's README result.json: what
 * stats/stats.go gives an empty histogram (Count 0; Min, Max, Sum, Avg, StdDev Go's zero; Data
 * a nil slice, written null; CalcPercentiles returns at Count 0, so no Percentiles) and
 * periodic.go an ActualQPS of 0 requests over the duration.
 */
export const FORTIO_NOTHING_SENT = JSON.stringify({
  RunType: 'HTTP',
  Labels: 'baseline 0 qps',
  StartTime: '2026-11-26T15:34:23.279389-07:00',
  RequestedQPS: '40',
  RequestedDuration: '100ms',
  ActualQPS: 0,
  ActualDuration: 104035637,
  NumThreads: 2,
  Version: '1.75.2',
  DurationHistogram: { Count: 0, Min: 0, Max: 0, Sum: 0, Avg: 0, StdDev: 0, Data: null },
  ErrorsDurationHistogram: { Count: 0, Min: 0, Max: 0, Sum: 0, Avg: 0, StdDev: 0, Data: null },
  Exactly: 0,
  Jitter: false,
  Uniform: false,
  RunID: 0,
  AccessLoggerInfo: '',
  RetCodes: {},
});
