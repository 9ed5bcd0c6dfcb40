// Synthetic propagation data: one change and N observations with a long-tailed latency.
export const T0_US = Date.parse('2026-02-01T10:00:00Z') * 1000;

export function iso(us: number): string {
  const ms = Math.floor(us / 1000);
  return `${new Date(ms).toISOString().slice(0, 23)}${String(Math.floor(us - ms * 1000)).padStart(3, '0')}Z`;
}

/** Deterministic latency (us) of proxy i: mostly 20-600 ms, 3 % in minutes. */
export function latencyUs(i: number): number {
  const u = ((i * 2654435761) % 4294967296) / 4294967296;
  if (u > 0.97) return 30e6 + u * 200e6;
  return 20e3 + 580e3 * u * u;
}

export function changeLine(id: string, expected: number): string {
  return JSON.stringify({
    type: 'change',
    id,
    kind: 'endpoint',
    target: 'hey',
    action: 'delete',
    at: iso(T0_US),
    expected,
  });
}

export function observationLine(change: string, i: number): string {
  return JSON.stringify({
    type: 'observation',
    change,
    proxy: `proxy-${i}-sidecar`,
    node: `node-${i % 10_000}`,
    at: iso(T0_US + latencyUs(i)),
  });
}

/** NDJSON lines [from, to) of observations, joined. */
export function observationBlock(change: string, from: number, to: number): string {
  const lines: string[] = [];
  for (let i = from; i < to; i++) lines.push(observationLine(change, i));
  return `${lines.join('\n')}\n`;
}

/**
 * NDJSON of N observations over two stages: proxies [0, N/2) each `received` 5 ms before it
 * `applied` (at its latency), so the batch holds N observation lines and two stages.
 */
export function stagedObservationBlock(change: string, n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n / 2; i++) {
    const at = T0_US + latencyUs(i);
    const proxy = `proxy-${i}-sidecar`;
    const node = `node-${i % 10_000}`;
    lines.push(
      JSON.stringify({
        type: 'observation',
        change,
        proxy,
        node,
        at: iso(at - 5000),
        stage: 'received',
      }),
      JSON.stringify({ type: 'observation', change, proxy, node, at: iso(at), stage: 'applied' }),
    );
  }
  return `${lines.join('\n')}\n`;
}
