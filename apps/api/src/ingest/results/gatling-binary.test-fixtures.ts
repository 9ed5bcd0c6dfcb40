// Test-only: binary simulation.log records (gatling-binary.encode.ts writes them as Gatling
// 3.13 on does) and the load result they must give, recomputed from the raw records.
import type { LoadResult } from '@meshbench/schema';
import { expect } from 'vitest';
import type { GatlingRecord } from './gatling-binary.ts';

type Request = Extract<GatlingRecord, { kind: 'request' }>;

/**
 * A run of `n` requests over two scenarios: groups, a name outside LATIN1 (written UTF16),
 * KO requests with messages (one with a tab and a newline), USER, GROUP and ERROR records
 * between them, and every 97th request 4 s slower.
 */
export function gatlingRun(n: number, runStart = 1_767_225_600_000): GatlingRecord[] {
  const out: GatlingRecord[] = [
    {
      kind: 'run',
      version: '3.14.3',
      simulation: 'mesh.Istio500kSimulation',
      start: runStart,
      description: 'stages of users',
      scenarios: ['Browse', 'Search'],
      assertions: [Uint8Array.from([1, 2, 3, 4, 5])],
    },
  ];
  let seed = 11;
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const start = runStart + 500 + i * 3;
    if (i % 400 === 0) out.push({ kind: 'user', scenario: i % 2, start: true, timestamp: start });
    const ko = seed % 17 === 0;
    out.push({
      kind: 'request',
      groups: i % 3 === 0 ? ['checkout', 'pay'] : [],
      name: i % 2 ? 'Home' : '検索 search',
      start,
      end: start + (seed % 700) + (i % 97 === 0 ? 4000 : 0),
      ok: !ko,
      message: ko
        ? i % 2
          ? 'status.find.is(200), but actually found 503'
          : 'j.n.ConnectException:\tConnection\nrefused'
        : '',
    });
    if (i % 500 === 250) {
      out.push({
        kind: 'group',
        groups: ['checkout'],
        start,
        end: start + 900,
        cumulatedResponseTime: 850,
        ok: true,
      });
      out.push({
        kind: 'error',
        message: 'Failed to build request: no attribute',
        timestamp: start,
      });
    }
  }
  out.push({ kind: 'user', scenario: 0, start: false, timestamp: runStart + 500 + n * 3 + 5000 });
  return out;
}

export const requestsOf = (records: GatlingRecord[]): Request[] =>
  records.filter((r): r is Request => r.kind === 'request');

/**
 * `point` equals what the raw REQUEST records give: counts, errors, duration, rate, min, max
 * and each percentile at the nearest rank over end - start, within [v - 1, v + 1] ms.
 */
export function expectRecomputed(point: LoadResult | undefined, requests: Request[]): void {
  const times = requests.map((r) => r.end - r.start).sort((a, b) => a - b);
  const first = Math.min(...requests.map((r) => r.start));
  const last = Math.max(...requests.map((r) => r.end));
  expect(point).toMatchObject({
    requests: requests.length,
    errors: requests.filter((r) => !r.ok).length,
    minMs: times[0],
    maxMs: times.at(-1),
    durationMs: last - first,
  });
  // Decoded as ISO ms, stored with microseconds: the same instant.
  expect(Date.parse(point?.startedAt ?? '')).toBe(first);
  expect(point?.achievedRps).toBeCloseTo(requests.length / ((last - first) / 1000), 9);
  expect(point?.percentiles.length).toBeGreaterThan(0);
  for (const q of point?.percentiles ?? []) {
    // Nearest rank in integers (p to 4 decimals).
    const v = times[Math.ceil((Math.round(q.p * 10000) * times.length) / 1_000_000) - 1] as number;
    expect(q).toMatchObject({ ms: v, exact: false, method: 'raw', lower: v - 1, upper: v + 1 });
    expect(q.lower).toBeLessThanOrEqual(v);
    expect(q.upper).toBeGreaterThanOrEqual(v);
  }
}
