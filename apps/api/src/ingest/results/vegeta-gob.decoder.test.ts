import { describe, expect, it } from 'vitest';
import type { ResultFileError } from './result-file-error.ts';
import { decodeSampleChunks } from './sample-formats.ts';
import { publicFixture } from './test-fixtures.ts';
import { decodeVegetaJson } from './vegeta.decoder.ts';
import { isVegetaGob } from './vegeta-gob.decoder.ts';
import { encodeVegetaGob, type VegetaResult, vegetaResultOfJson } from './vegeta-gob.encode.ts';

const limits = { maxLineBytes: 1 << 20 };

async function decode(bytes: Uint8Array, chunk = 65536) {
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
  }
  return decodeSampleChunks('vegeta', chunks(), limits);
}

const at = (unixS: number, nanos: number): VegetaResult['timestamp'] => ({
  unixS,
  nanos,
  offsetMin: null,
});

describe("Vegeta's binary (gob) results", () => {
  it('decode as the same results written as JSON lines decode, in each generation', async () => {
    // Lines the real tool wrote (fixtures/public/vegeta/PROVENANCE.md), each encoded as
    // `vegeta attack` would have written it.
    for (const name of [
      'vegeta/ocm-api-load-results.json',
      'vegeta/e2e-2019-results.json',
      'vegeta/loadgentest-2016-results.json',
    ]) {
      const text = publicFixture(name);
      const lines = text.split('\n').filter((l) => l.trim() !== '');
      const gob = encodeVegetaGob(lines.map(vegetaResultOfJson));
      expect(isVegetaGob(gob)).toBe(true);
      expect(await decode(gob)).toEqual(decodeVegetaJson(text));
      // A byte at a time: the stream is read as it arrives.
      expect(await decode(gob, 1)).toEqual(decodeVegetaJson(text));
    }
  });

  it('gives nearest-rank percentiles of the raw latencies, to the microsecond', async () => {
    // 1000 requests, one every ms from t0; the i-th took i * 1,000,123 ns; every 100th a 503,
    // one had no response (code 0), with headers on some.
    const t0 = 1_767_225_600; // 2026-01-01T00:00:00Z
    const results: VegetaResult[] = [];
    for (let i = 1; i <= 1000; i++) {
      results.push({
        attack: 'mesh-500k',
        seq: i - 1,
        code: i === 7 ? 0 : i % 100 === 0 ? 503 : 200,
        timestamp: at(t0 + Math.floor((i - 1) / 1000), ((i - 1) % 1000) * 1_000_000),
        latencyNs: i * 1_000_123,
        bytesIn: 512,
        method: 'GET',
        url: 'http://svc/',
        headers: i % 2 === 0 ? { 'Content-Type': ['text/plain'], Via: ['a', 'b'] } : null,
      });
    }
    const [r] = (await decode(encodeVegetaGob(results))).results;
    // Sorted latencies in whole us: i * 1000 + floor(i * 123 / 1000). Rank ceil(p * n / 100).
    const us = (i: number) => i * 1000 + Math.floor((i * 123) / 1000);
    expect(r?.requests).toBe(1000);
    expect(r?.errors).toBe(11);
    expect(r?.errorsByCode).toEqual({ '0': 1, '503': 10 });
    expect(r?.labels).toEqual({ tool: 'vegeta', attack: 'mesh-500k' });
    expect(r?.startedAt).toBe('2026-01-01T00:00:00.000000Z');
    for (const [p, rank] of [
      [50, 500],
      [99, 990],
      [99.9, 999],
    ] as const) {
      const found = r?.percentiles.find((x) => x.p === p);
      expect(found?.ms).toBe(us(rank) / 1000);
      expect(found?.lower).toBe(us(rank) / 1000);
      expect(found?.upper).toBe((us(rank) + 1) / 1000);
    }
    expect(r?.minMs).toBe(us(1) / 1000);
    expect(r?.maxMs).toBe(us(1000) / 1000);
    // From the first start (t0) to the last end: 999 ms + 1000 * 1.000123 ms.
    expect(r?.durationMs).toBe((999_000 + us(1000)) / 1000);
  });

  it('refuses a cut stream, and a stream that is not one, naming what is wrong', async () => {
    const gob = encodeVegetaGob([{ code: 200, timestamp: at(1, 0), latencyNs: 5 }]);
    const cut = (await decode(gob.subarray(0, gob.length - 3)).catch((e) => e)) as ResultFileError;
    expect(cut).toMatchObject({ problem: 'truncated' });
    // The value's type id (65: ff 82, after its one-byte count) changed to 69, never defined.
    const one = { code: 200, timestamp: at(1, 0), latencyNs: 5 };
    const valueBytes = encodeVegetaGob([one, one]).length - gob.length;
    const broken = Buffer.from(gob);
    expect([...broken.subarray(gob.length - valueBytes, gob.length - valueBytes + 3)]).toEqual([
      valueBytes - 1,
      0xff,
      0x82,
    ]);
    broken[gob.length - valueBytes + 2] = 0x8a;
    const refused = (await decode(broken).catch((e) => e)) as ResultFileError;
    expect(refused.problem).toBe('invalid_value');
    expect(refused.message).toMatch(
      /^not Vegeta's gob results \(vegeta attack's output\): byte \d+: a value of type id 69, which the stream never defined$/,
    );
  });
});
