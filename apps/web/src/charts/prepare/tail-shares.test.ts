import { describe, expect, it } from 'vitest';
import { causeColor } from './tail.ts';
import { prepareTailShares } from './tail-shares.ts';

const cause = (name: string, count: number) => ({ cause: name, count, share: 0, percentiles: [] });

describe('prepareTailShares', () => {
  const prepared = prepareTailShares([
    {
      key: 'consul',
      // 8 slow + 2 never converged = 10.
      tail: {
        tailCount: 8,
        neverConverged: 2,
        causes: [cause('reconnect', 5), cause('unexplained', 3), cause('never-converged', 2)],
      },
    },
    {
      key: 'istio',
      tail: {
        tailCount: 4,
        neverConverged: 0,
        causes: [cause('packet-loss', 3), cause('reconnect', 1)],
      },
    },
    { key: 'linkerd', tail: null },
  ]);

  it('orders causes by their total count, unexplained and never-converged last', () => {
    // reconnect 5 + 1 = 6, packet-loss 3; then the two the API assigns itself.
    expect(prepared.causes.map((c) => c.cause)).toEqual([
      'reconnect',
      'packet-loss',
      'unexplained',
      'never-converged',
    ]);
    // Colours as the run page's tail panel gives them.
    expect(prepared.causes.map((c) => c.color)).toEqual(
      prepared.causes.map((c) => causeColor(c.cause)),
    );
  });
  it('gives each run its shares of its own tail, in percent', () => {
    expect(prepared.rows[0]).toEqual({
      key: 'consul',
      tailCount: 8,
      neverConverged: 2,
      total: 10,
      percent: { reconnect: 50, 'packet-loss': 0, unexplained: 30, 'never-converged': 20 },
      count: { reconnect: 5, 'packet-loss': 0, unexplained: 3, 'never-converged': 2 },
    });
    // 3 / 4 and 1 / 4.
    expect(prepared.rows[1]?.percent).toEqual({
      reconnect: 25,
      'packet-loss': 75,
      unexplained: 0,
      'never-converged': 0,
    });
    expect(prepared.rows[2]).toBeNull();
  });
  it('colours a cause nobody planned for too', () => {
    const p = prepareTailShares([
      { key: 'a', tail: { tailCount: 2, neverConverged: 0, causes: [cause('dns-timeout', 2)] } },
    ]);
    expect(p.causes).toEqual([{ cause: 'dns-timeout', color: causeColor('dns-timeout') }]);
    expect(p.rows[0]?.percent).toEqual({ 'dns-timeout': 100 });
  });
  it('draws an empty bar for a run without a tail', () => {
    const p = prepareTailShares([
      { key: 'a', tail: { tailCount: 0, neverConverged: 0, causes: [] } },
    ]);
    expect(p.causes).toEqual([]);
    expect(p.rows[0]).toMatchObject({ total: 0, percent: {} });
  });
});
