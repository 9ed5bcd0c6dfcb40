import { describe, expect, it } from 'vitest';
import {
  assignCauses,
  overlapUs,
  type TailIncident,
  type TailObservation,
  tailBreakdown,
} from './tail-causes.ts';

// The change at t0; every time below is t0 + ms.
const T0 = 1_769_940_000_000_000;
const us = (ms: number) => T0 + ms * 1000;
const obs = (proxy: string, ms: number, extra: Partial<TailObservation> = {}): TailObservation => ({
  proxy,
  node: `n-${proxy}`,
  atUs: us(ms),
  cause: null,
  ...extra,
});
const incident = (
  kind: string,
  fromMs: number,
  toMs: number | null,
  where: { node?: string; proxy?: string },
): TailIncident => ({
  kind,
  node: where.node ?? null,
  proxy: where.proxy ?? null,
  fromUs: us(fromMs),
  toUs: toMs === null ? null : us(toMs),
});
const causeOf = (o: TailObservation, incidents: TailIncident[]) => {
  const [explained] = assignCauses([o], incidents, T0);
  return explained!;
};

describe('overlap with the interval from the change to the observation', () => {
  const o = obs('p1', 5000); // interval [0, 5000] ms

  it('counts an incident ending exactly at the change', () => {
    const i = incident('reconnect', -3000, 0, { proxy: 'p1' });
    expect(overlapUs(i, T0, o.atUs)).toBe(0);
    expect(causeOf(o, [i])).toMatchObject({ cause: 'reconnect', incident: i });
  });

  it('counts an incident starting exactly at the observation', () => {
    const i = incident('packet-loss', 5000, 9000, { proxy: 'p1' });
    expect(overlapUs(i, T0, o.atUs)).toBe(0);
    expect(causeOf(o, [i]).cause).toBe('packet-loss');
  });

  it('ignores an incident ending before the change', () => {
    const i = incident('reconnect', -3000, -0.001, { proxy: 'p1' });
    expect(overlapUs(i, T0, o.atUs)).toBeNull();
    expect(causeOf(o, [i])).toMatchObject({ cause: 'unexplained', incident: null });
  });

  it('ignores an incident starting after the observation', () => {
    const i = incident('reconnect', 5000.001, 9000, { proxy: 'p1' });
    expect(overlapUs(i, T0, o.atUs)).toBeNull();
    expect(causeOf(o, [i]).cause).toBe('unexplained');
  });

  it('runs an open-ended incident (to null) up to the observation', () => {
    const i = incident('agent-restart', 1000, null, { node: 'n-p1' });
    expect(overlapUs(i, T0, o.atUs)).toBe(4000 * 1000);
    expect(causeOf(o, [i])).toMatchObject({ cause: 'agent-restart', incident: i });
    // Open, but started after the observation: no.
    expect(causeOf(o, [incident('agent-restart', 6000, null, { node: 'n-p1' })]).cause).toBe(
      'unexplained',
    );
  });

  it('clips the overlap to the interval', () => {
    // [-10 s, +10 s] covers all 5 s of the interval, no more.
    expect(overlapUs(incident('x', -10_000, 10_000, {}), T0, o.atUs)).toBe(5000 * 1000);
    expect(overlapUs(incident('x', 1000, 2500, {}), T0, o.atUs)).toBe(1500 * 1000);
  });
});

describe('which incident explains a proxy', () => {
  const o = obs('p1', 5000);

  it('prefers a proxy-level incident over a node-level one, even a longer one', () => {
    const node = incident('leader-election', -1000, 6000, { node: 'n-p1' }); // 5 s overlap
    const proxy = incident('retry-backoff', 4000, 4500, { proxy: 'p1' }); // 0.5 s overlap
    expect(causeOf(o, [node, proxy])).toMatchObject({ cause: 'retry-backoff', incident: proxy });
    // Without the proxy-level one, the node explains it.
    expect(causeOf(o, [node]).cause).toBe('leader-election');
  });

  it('treats an incident naming a proxy as about that proxy only, not its whole node', () => {
    const other = incident('reconnect', 0, 5000, { node: 'n-p1', proxy: 'p2' });
    expect(causeOf(o, [other]).cause).toBe('unexplained');
    // ...and matches its proxy even when it names another node.
    const moved = incident('reconnect', 0, 5000, { node: 'n-elsewhere', proxy: 'p1' });
    expect(causeOf(o, [moved]).cause).toBe('reconnect');
  });

  it('ignores incidents on other nodes and proxies', () => {
    const incidents = [
      incident('reconnect', 0, 5000, { proxy: 'p9' }),
      incident('packet-loss', 0, 5000, { node: 'n-p9' }),
    ];
    expect(causeOf(o, incidents).cause).toBe('unexplained');
    // A proxy without a node can only be explained at proxy level.
    expect(
      causeOf(obs('p1', 5000, { node: null }), [incident('x', 0, 5000, { node: 'n-p1' })]),
    ).toMatchObject({ cause: 'unexplained' });
  });

  it('picks the longest overlap, then the earliest from, then the kind', () => {
    const short = incident('reconnect', -60_000, 1000, { proxy: 'p1' }); // 1 s overlap
    const long = incident('tcp-retransmits', 2000, 4500, { proxy: 'p1' }); // 2.5 s
    expect(causeOf(o, [short, long]).cause).toBe('tcp-retransmits');
    // Equal overlaps (2 s each): the earlier start wins, whichever order they come in.
    const early = incident('packet-loss', -5000, 2000, { proxy: 'p1' });
    const late = incident('reconnect', 3000, 5000, { proxy: 'p1' });
    expect(causeOf(o, [late, early]).cause).toBe('packet-loss');
    expect(causeOf(o, [early, late]).cause).toBe('packet-loss');
    // Same overlap and start: by kind, so the answer never depends on row order.
    const a = incident('b-kind', 0, 1000, { proxy: 'p1' });
    const b = incident('a-kind', 0, 1000, { proxy: 'p1' });
    expect(causeOf(o, [a, b]).cause).toBe('a-kind');
  });

  it('decides each rule before the next, in either input order', () => {
    // Each pair differs at one rule and loses at the next: a rule consulted out of turn, or a
    // tie-break applied where the rule before it already decided, picks the other one.
    const pairs: [winner: TailIncident, loser: TailIncident][] = [
      // Longer overlap (2.5 s against 1 s) beats an earlier start.
      [
        incident('tcp-retransmits', 2000, 4500, { proxy: 'p1' }),
        incident('reconnect', -60_000, 1000, { proxy: 'p1' }),
      ],
      // Equal overlaps (2 s): the earlier start beats an alphabetically earlier kind.
      [
        incident('tcp-retransmits', -5000, 2000, { proxy: 'p1' }),
        incident('agent-restart', 3000, 5000, { proxy: 'p1' }),
      ],
      // Equal overlap and start: the kind first in alphabetical order.
      [incident('a-kind', 0, 1000, { proxy: 'p1' }), incident('b-kind', 0, 1000, { proxy: 'p1' })],
    ];
    for (const [winner, loser] of pairs) {
      expect(causeOf(o, [winner, loser]).incident).toBe(winner);
      expect(causeOf(o, [loser, winner]).incident).toBe(winner);
    }
  });

  it("keeps the runner's cause over any incident", () => {
    const withCause = obs('p1', 5000, { cause: 'reconnect-backoff' });
    const i = incident('reconnect', 0, 5000, { proxy: 'p1' });
    expect(causeOf(withCause, [i])).toMatchObject({ cause: 'reconnect-backoff', incident: null });
  });

  it('takes an empty cause as none sent: the incident or "unexplained" explains the proxy', () => {
    const blank = obs('p1', 5000, { cause: '' });
    const i = incident('reconnect', 0, 5000, { proxy: 'p1' });
    expect(causeOf(blank, [i])).toMatchObject({ cause: 'reconnect', incident: i });
    expect(causeOf(blank, [])).toMatchObject({ cause: 'unexplained', incident: null });
  });

  it('computes latency from the change', () => {
    expect(causeOf(o, []).latencyUs).toBe(5_000_000);
  });
});

describe('the causes table', () => {
  // Latencies (ms) by cause, worked by hand:
  //   reconnect:   1500, 2000, 3000, 9000 (4)  -> P50 rank ceil(2)=2 -> 2000;
  //                P90 rank ceil(3.6)=4 -> 9000; P99 rank 4 -> 9000
  //   unexplained: 1200 (1)                    -> every percentile 1200
  //   never-converged: 3 (expected - count)
  // total = 5 tail + 3 never = 8.
  const reconnect = incident('reconnect', 0, null, { node: 'n-r' });
  const tail = [
    obs('r1', 3000, { node: 'n-r' }),
    obs('r2', 1500, { node: 'n-r' }),
    obs('r3', 9000, { node: 'n-r' }),
    obs('r4', 2000, { node: 'n-r' }),
    obs('u1', 1200),
  ];
  // Computed in each test, not here: under Stryker a mutant that throws while the file is
  // collected fails no test (the file has none), so it would count as survived.
  const explained = () => assignCauses(tail, [reconnect], T0);

  it('counts, shares and nearest-rank percentiles per cause, never-converged its own row', () => {
    const b = tailBreakdown(explained(), 3, 50);
    expect(b.tailCount).toBe(5);
    expect(b.neverConverged).toBe(3);
    expect(b.causes).toEqual([
      {
        cause: 'reconnect',
        count: 4,
        share: 4 / 8,
        percentiles: [
          { p: 50, ms: 2000, exact: true, method: 'raw' },
          { p: 90, ms: 9000, exact: true, method: 'raw' },
          { p: 99, ms: 9000, exact: true, method: 'raw' },
        ],
      },
      { cause: 'never-converged', count: 3, share: 3 / 8, percentiles: [] },
      {
        cause: 'unexplained',
        count: 1,
        share: 1 / 8,
        percentiles: [
          { p: 50, ms: 1200, exact: true, method: 'raw' },
          { p: 90, ms: 1200, exact: true, method: 'raw' },
          { p: 99, ms: 1200, exact: true, method: 'raw' },
        ],
      },
    ]);
  });

  it('lists the slowest first, up to the limit', () => {
    const b = tailBreakdown(explained(), 3, 3);
    expect(b.slowest.map((o) => [o.proxy, o.latencyUs / 1000, o.cause])).toEqual([
      ['r3', 9000, 'reconnect'],
      ['r1', 3000, 'reconnect'],
      ['r4', 2000, 'reconnect'],
    ]);
    expect(b.slowest[0]!.incident).toBe(reconnect);
  });

  it('breaks ties by name: causes of equal count, and proxies of equal latency, in any input order', () => {
    // Two causes of two proxies each, and never-converged also two: ordered by name
    // ('never-converged' < 'reconnect' < 'unexplained'). Four proxies at 5,000 ms: by proxy name.
    const r = incident('reconnect', 0, null, { node: 'n-r' });
    const tied = [
      obs('d', 5000, { node: 'n-r' }),
      obs('b', 5000),
      obs('c', 5000, { node: 'n-r' }),
      obs('a', 5000),
    ];
    const orders = (xs: TailObservation[]): TailObservation[][] =>
      xs.length <= 1
        ? [xs]
        : xs.flatMap((x, i) =>
            orders([...xs.slice(0, i), ...xs.slice(i + 1)]).map((o) => [x, ...o]),
          );
    // Every one of the 24 input orders: a comparator that is wrong only on ties shows in some.
    for (const input of orders(tied)) {
      const b = tailBreakdown(assignCauses(input, [r], T0), 2, 3);
      expect(b.causes.map((c) => [c.cause, c.count])).toEqual([
        ['never-converged', 2],
        ['reconnect', 2],
        ['unexplained', 2],
      ]);
      expect(b.slowest.map((o) => o.proxy)).toEqual(['a', 'b', 'c']);
    }
  });

  it('has no never-converged row when every expected proxy applied it, and nothing when empty', () => {
    expect(tailBreakdown(explained(), 0, 50).causes.map((c) => [c.cause, c.share])).toEqual([
      ['reconnect', 0.8],
      ['unexplained', 0.2],
    ]);
    expect(tailBreakdown([], 0, 50)).toEqual({
      tailCount: 0,
      neverConverged: 0,
      causes: [],
      slowest: [],
    });
    expect(tailBreakdown([], 2, 50).causes).toEqual([
      { cause: 'never-converged', count: 2, share: 1, percentiles: [] },
    ]);
  });

  it('breaks count ties by cause name', () => {
    const two = assignCauses(
      [obs('a', 2000, { cause: 'zeta' }), obs('b', 3000, { cause: 'alpha' })],
      [],
      T0,
    );
    expect(tailBreakdown(two, 0, 50).causes.map((c) => c.cause)).toEqual(['alpha', 'zeta']);
  });
});
