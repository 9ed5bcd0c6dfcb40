import { describe, expect, it } from 'vitest';
import { sniff } from './detect.ts';
import { decodeResults } from './index.ts';
import type { ResultFileError } from './result-file-error.ts';
import { publicFixture } from './test-fixtures.ts';
import { decodeVegetaJson } from './vegeta.decoder.ts';

// Lines Vegeta wrote, as published (fixtures/public/vegeta/PROVENANCE.md), three generations.
const easyjson = publicFixture('vegeta/ocm-api-load-results.json');
const named = publicFixture('vegeta/e2e-2019-results.json');
const early = publicFixture('vegeta/loadgentest-2016-results.json');

const thrown = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as ResultFileError;
  }
  throw new Error('did not throw');
};

describe('Vegeta JSON results', () => {
  it('is told by its first line in each generation', async () => {
    for (const text of [easyjson, named, early]) expect(sniff(text)).toBe('vegeta');
    expect((await decodeResults(easyjson)).format).toBe('vegeta');
    expect((await decodeResults(early, 'vegeta')).format).toBe('vegeta');
  });

  it('counts successes as Vegeta does (200 <= code < 400), the rest by code', () => {
    const [point] = decodeVegetaJson(easyjson).results;
    // Codes 0 (no response), 200 and 300.
    expect(point).toMatchObject({
      requests: 3,
      errors: 1,
      errorsByCode: { '0': 1 },
      labels: { tool: 'vegeta', attack: 'access-review' },
      startedAt: '2022-03-17T16:12:32.077719Z',
    });
    // 788,624,775 ns: 788.624 ms to the whole microsecond, the true value below 788.625.
    expect(point?.percentiles[0]).toEqual({
      p: 50,
      ms: 788.624,
      exact: false,
      method: 'raw',
      lower: 788.624,
      upper: 788.625,
    });
    // All three began at the same instant: the span is one latency, to the microsecond.
    expect(Math.abs((point?.durationMs as number) - 788.624775)).toBeLessThan(0.001);
  });

  it('reads the earlier generations: a named attack, and no attack or seq at all', () => {
    expect(decodeVegetaJson(named).results[0]).toMatchObject({
      requests: 1,
      errors: 1,
      errorsByCode: { '0': 1 },
      minMs: 1.089,
      startedAt: '2019-11-04T07:46:16.885395Z',
    });
    expect(decodeVegetaJson(early).results[0]).toMatchObject({
      requests: 1,
      errors: 0,
      maxMs: 0.49,
      labels: { tool: 'vegeta' },
    });
  });

  it('refuses a line Vegeta does not write, naming it', () => {
    const first = easyjson.split('\n')[0] as string;
    expect(thrown(() => decodeVegetaJson(`${first}\n{"code":200,`))).toMatchObject({
      problem: 'invalid_line',
      line: 2,
    });
    expect(
      thrown(() =>
        decodeVegetaJson(`${first}\n${first.replace('"latency":788624775', '"latency":-1')}`),
      ),
    ).toMatchObject({ problem: 'invalid_line', line: 2, field: 'latency' });
    expect(
      thrown(() =>
        decodeVegetaJson(first.replace(/"timestamp":"[^"]*"/, '"timestamp":"yesterday"')),
      ),
    ).toMatchObject({ problem: 'invalid_line', line: 1, field: 'timestamp' });
  });
});
