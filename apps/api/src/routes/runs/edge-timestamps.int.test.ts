// Timestamps at the edges of the range the API takes (1970-01-01T00:00:00Z to
// 2255-06-05T23:47:34.740991Z, the last microsecond exact in a double): stored, read back and
// exported as sent, the export taken again by the upload; the tail, its attribution and the
// Perfetto trace answer whole. Past either edge, refused at the upload naming the field.
import { LATEST_TIMESTAMP } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, useServer } from '../../test/harness.ts';

const EARLIEST = '1970-01-01T00:00:00.000000Z';
const LATEST = LATEST_TIMESTAMP;

const batch = (changeAt: string, observedAt: string) =>
  [
    { type: 'change', id: 'edge', kind: 'endpoint', target: 't', action: 'add', at: changeAt },
    { type: 'observation', change: 'edge', proxy: 'p1', node: 'n1', at: observedAt },
    { type: 'observation', change: 'edge', proxy: 'p2', node: 'n2', at: observedAt },
  ]
    .map((e) => JSON.stringify(e))
    .join('\n');

describe.each(backends)('edge timestamps on $name', (backend) => {
  const server = useServer(backend);
  const post = (runId: string, body: string) =>
    server.api(`/runs/${runId}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body,
    });

  it.each([
    ['the earliest instant', EARLIEST, '1970-01-01T00:00:00.000001Z'],
    ['the latest instant', '2255-06-05T23:47:34.740990Z', LATEST],
  ])('%s is stored, exported as sent and taken back', async (_name, changeAt, observedAt) => {
    const run = await createRun(server);
    const posted = await post(run.id, batch(changeAt, observedAt));
    expect(posted.status, await posted.text()).toBeLessThan(300);

    const exported = await server.api(`/runs/${run.id}/events`);
    expect(exported.status).toBe(200);
    const text = await exported.text();
    expect(text).toContain(`"${changeAt}"`);
    expect(text).toContain(`"${observedAt}"`);
    const again = await createRun(server);
    const reposted = await post(again.id, text);
    expect(reposted.status, await reposted.clone().text()).toBeLessThan(300);

    const tail = await server.api(`/runs/${run.id}/changes/edge/tail?thresholdP=50`);
    expect(tail.status, await tail.clone().text()).toBe(200);
    const attribution = await server.api(
      `/runs/${run.id}/changes/edge/tail/attribution?thresholdP=50`,
    );
    expect(attribution.status, await attribution.clone().text()).toBe(200);
    const trace = await server.api(`/runs/${run.id}/changes/edge/perfetto`);
    expect(trace.status).toBe(200);
    // Whole: the body ends where its length says (a cut stream fails the read).
    const bytes = new Uint8Array(await trace.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(0);
  });

  it.each([
    ['a change at year 0001', '0001-01-01T00:00:00Z', '2026-02-01T10:00:00Z', 1],
    ['a change before the epoch', '1969-12-31T23:59:59.999999Z', '2026-02-01T10:00:00Z', 1],
    [
      'an observation at 9999-12-31T23:59:59.999999Z',
      '2026-02-01T10:00:00Z',
      '9999-12-31T23:59:59.999999Z',
      2,
    ],
    [
      'an observation a microsecond past the latest',
      '2026-02-01T10:00:00Z',
      '2255-06-05T23:47:34.740992Z',
      2,
    ],
  ])('%s is refused naming the line and field', async (_name, changeAt, observedAt, line) => {
    const run = await createRun(server);
    const posted = await post(run.id, batch(changeAt, observedAt));
    const body = (await posted.json()) as { line?: number; field?: string; message: string };
    expect(posted.status).toBe(400);
    expect(body).toMatchObject({ line, field: 'at' });
    expect(body.message).toContain('1970-01-01T00:00:00Z to 2255-06-05T23:47:34.740991Z');
    expect((await server.api(`/runs/${run.id}/changes`)).status).toBe(200);
  });
});
