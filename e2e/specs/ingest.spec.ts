// The ingest page end to end: StatsD lines sent over real UDP to the running app (good ones
// for a run, a malformed one, one for a run that does not exist) move its counters by what
// was sent, name the malformed line, and count the unmatched aggregate once it is flushed;
// an event batch the API rejects shows as the last rejection, with the API's own message;
// a remote-write request moves the Prometheus counters by what it carried, written and not.
import { randomUUID } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdirSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { apiClient } from '@meshbench/api/demo';
import { encodeWriteRequest, REMOTE_WRITE_V1_TYPE, snappyBlock } from '@meshbench/api/remote-write';
import { apiError } from '@meshbench/schema';
import { expect, type Page, test } from '@playwright/test';
import { apiReads } from './api-reads.ts';

const artifacts = new URL('../artifacts/', import.meta.url);
const artifact = (name: string) => new URL(name, artifacts).pathname;

function sendUdp(port: number, datagram: string): Promise<void> {
  const socket = createSocket('udp4');
  return new Promise((resolve, reject) =>
    socket.send(datagram, port, '127.0.0.1', (error) => {
      socket.close();
      if (error) reject(error);
      else resolve();
    }),
  );
}

const counter = async (page: Page, id: string) =>
  Number(((await page.getByTestId(`ingest-${id}`).textContent()) ?? '').replace(/,/g, ''));

test('the ingest page counts what StatsD received, and names what it dropped', async ({
  page,
  baseURL,
}) => {
  mkdirSync(artifacts, { recursive: true });
  const port = Number(process.env.E2E_STATSD_PORT);
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  const run = await api.createRun({
    benchmark: 'e2e-ingest',
    scenario: 'statsd',
    mesh: { name: 'consul' },
    labels: { e2e: randomUUID() },
  });
  const stats = await apiReads(baseURL).ingestStats();
  const before = stats.statsd;

  await page.goto('/ingest');
  await expect(page.getByRole('heading', { name: 'Ingest' })).toBeVisible();
  await expect(page.getByTestId('ingest-statsd-listener')).toContainText(`UDP ${port}`);
  await expect(page.getByTestId('ingest-statsd-listener')).toContainText('recvmmsg');

  const bad = `e2e.bad.${randomUUID().slice(0, 8)}:oops|g`;
  await sendUdp(
    port,
    [
      `e2e.pushes:1|c|#run:${run.id}`,
      `e2e.pushes:2|c|#run:${run.id}`,
      `e2e.cpu:42|g|#run:${run.id}`,
      bad,
      `e2e.orphan:1|c|#run:no-such-run-${randomUUID().slice(0, 8)}`,
    ].join('\n'),
  );

  // The page refreshes itself: the counters move by what was sent.
  await expect.poll(() => counter(page, 'lines')).toBe(before.lines + 5);
  expect(await counter(page, 'datagrams')).toBe(before.datagrams + 1);
  expect(await counter(page, 'malformed')).toBe(before.malformed + 1);
  await expect(page.getByTestId('ingest-last-malformed')).toContainText(bad);
  await expect(page.getByTestId('ingest-last-malformed')).toContainText('is not a number');
  // The orphan's aggregate is dropped when its interval is flushed (1 s).
  await expect.poll(() => counter(page, 'unmatched')).toBe(before.unmatched + 1);
  await expect(page.getByText('Dropped aggregates: tag metrics run:')).toBeVisible();

  // An event batch with an observation that names no proxy: a 400, shown with its message.
  const rejected = await fetch(`${baseURL}/api/v1/runs/${run.id}/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-ndjson',
      authorization: `Bearer ${process.env.MESHBENCH_ADMIN_TOKEN}`,
    },
    body: '{"type":"observation","change":"c1","at":"2026-02-01T10:00:00Z"}',
  });
  expect(rejected.status).toBe(400);
  const { message } = apiError.parse(await rejected.json());
  await expect.poll(() => counter(page, 'events-rejected')).toBe(stats.events.rejected + 1);
  await expect(page.getByTestId('ingest-events-last-rejection')).toContainText(message);
  await expect(page.getByTestId('ingest-events-last-rejection')).toContainText('(400,');
  await page.screenshot({ path: artifact('ingest.png'), fullPage: true });
  // With its warnings and their hints showing, the page still passes axe.
  const axe = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  expect(
    axe.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
  ).toEqual([]);

  // And the run got its two series.
  const series = await apiReads(baseURL).runs.series(run.id);
  expect(series.find((s) => s.name === 'e2e.pushes')?.stats.sum).toBe(3);
  expect(series.find((s) => s.name === 'e2e.cpu')?.stats.last).toBe(42);
});

test('the ingest page counts what Prometheus remote write sent, written and refused', async ({
  page,
  baseURL,
}) => {
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  const run = await api.createRun({
    benchmark: 'e2e-ingest',
    scenario: 'remote-write',
    mesh: { name: 'istio' },
    labels: { e2e: randomUUID() },
  });
  const before = (await apiReads(baseURL).ingestStats()).prometheus;
  await page.goto('/ingest');
  await expect(page.getByRole('heading', { name: 'Prometheus remote write' })).toBeVisible();

  // Three samples of a run, and one of a series without __name__: a 400 naming it.
  const t = Date.now();
  const body = snappyBlock(
    encodeWriteRequest([
      {
        labels: [
          ['__name__', 'pilot_xds_pushes_total'],
          ['meshbench_run', run.id],
        ],
        samples: [
          { value: 1, timestampMs: t },
          { value: 4, timestampMs: t + 1000 },
        ],
      },
      {
        labels: [
          ['__name__', 'pilot_proxies'],
          ['meshbench_run', run.id],
        ],
        samples: [{ value: 7, timestampMs: t }],
      },
      { labels: [['job', 'istiod']], samples: [{ value: 1, timestampMs: t }] },
    ]),
  );
  const answer = await fetch(`${baseURL}/api/v1/write`, {
    method: 'POST',
    headers: {
      'content-type': REMOTE_WRITE_V1_TYPE,
      'content-encoding': 'snappy',
      authorization: `Bearer ${process.env.MESHBENCH_ADMIN_TOKEN}`,
    },
    body,
  });
  expect(answer.status).toBe(400);
  expect(await answer.text()).toContain('1 sample(s): a series without a __name__ label');

  await expect.poll(() => counter(page, 'prw-samples')).toBe(before.samples + 4);
  expect(await counter(page, 'prw-written')).toBe(before.written + 3);
  expect(await counter(page, 'prw-refused')).toBe(before.refused + 1);
  await expect(
    page.getByText('Prometheus logged the reason and does not resend these'),
  ).toBeVisible();
  const series = await apiReads(baseURL).runs.series(run.id);
  expect(series.map((s) => [s.name, s.source]).sort()).toEqual([
    ['pilot_proxies', 'prometheus'],
    ['pilot_xds_pushes_total', 'prometheus'],
  ]);
});

test('the ingest page counts probe events sent as OTLP logs, and the records it rejected', async ({
  page,
  baseURL,
}) => {
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  const run = await api.createRun({
    benchmark: 'e2e-ingest',
    scenario: 'otlp-logs',
    mesh: { name: 'consul' },
    labels: { e2e: randomUUID() },
  });
  const before = (await apiReads(baseURL).ingestStats()).otlpLogs;
  await page.goto('/ingest');
  await expect(page.getByRole('heading', { name: 'OTLP/HTTP logs (probe events)' })).toBeVisible();

  const at = String(BigInt(Date.now()) * 1_000_000n);
  const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const body = {
    resourceLogs: [
      {
        resource: { attributes: [str('meshbench.run', run.id)] },
        scopeLogs: [
          {
            logRecords: [
              {
                eventName: 'meshbench.change',
                timeUnixNano: at,
                attributes: [
                  str('id', 'c1'),
                  str('kind', 'endpoint'),
                  str('target', 'hey'),
                  str('action', 'add'),
                ],
              },
              {
                eventName: 'meshbench.observation',
                timeUnixNano: at,
                attributes: [str('change', 'c1'), str('proxy', 'p-1')],
              },
              { timeUnixNano: at, body: { stringValue: 'not an event' } },
            ],
          },
        ],
      },
    ],
  };
  const answer = await fetch(`${baseURL}/v1/logs`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${process.env.MESHBENCH_ADMIN_TOKEN}`,
    },
    body: JSON.stringify(body),
  });
  expect(answer.status).toBe(200);
  expect(await answer.text()).toContain('"rejectedLogRecords":1');

  await expect.poll(() => counter(page, 'otlp-logs-records')).toBe(before.records + 3);
  expect(await counter(page, 'otlp-logs-events')).toBe(before.events + 2);
  expect(await counter(page, 'otlp-logs-rejected')).toBe(before.rejected + 1);
  await expect(
    page.getByText('Reported to the exporter in partial_success: not a meshbench'),
  ).toBeVisible();
});
