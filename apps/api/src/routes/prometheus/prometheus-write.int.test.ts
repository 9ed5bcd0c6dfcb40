// POST /api/v1/write against the running app, with bodies encoded from the vendored upstream
// protos (1.0 and 2.0): what is read back through the series API, hand-computed from what
// was sent, and the status codes and Written headers the specification requires.
import {
  createdToken,
  project as projectAnswer,
  type Series,
  seriesExemplars,
  seriesList,
  seriesPoints,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, jsonBody, type TestServer, useServer } from '../../test/harness.ts';
import {
  CONTENT_TYPE_V1,
  CONTENT_TYPE_V2,
  compress,
  encodeV1,
  encodeV2,
  postWrite,
  requestV2,
} from '../../test/remote-write-proto.ts';

let n = 0;
const unique = (what: string) => `${what}-${process.pid}-${Date.now()}-${n++}`;
const iso = (ms: number) => new Date(ms).toISOString();

async function series(server: TestServer, runId: string): Promise<Series[]> {
  const { status, body } = await server.json(`/runs/${runId}/series`, undefined, seriesList);
  expect(status).toBe(200);
  return body;
}
const named = (list: Series[], name: string, tags: Record<string, string> = {}) => {
  const found = list.find(
    (s) => s.name === name && Object.entries(tags).every(([k, v]) => s.tags[k] === v),
  );
  if (!found) throw new Error(`no series ${name} in ${list.map((s) => s.name).join(', ')}`);
  return found;
};

/** 1.0 labels from a record, `__name__` first as Prometheus sends them. */
const labels = (name: string, rest: Record<string, string>) => [
  { name: '__name__', value: name },
  ...Object.entries(rest).map(([k, v]) => ({ name: k, value: v })),
];

describe.each(backends)('Prometheus remote write on $name', (backend) => {
  const server = useServer(backend);
  const v1 = (message: object, token = server.token) =>
    postWrite(server.url, token, compress(encodeV1(message)), CONTENT_TYPE_V1);
  const v2 = (message: object, token = server.token) =>
    postWrite(server.url, token, compress(encodeV2(message)), CONTENT_TYPE_V2);

  it('1.0: counters across a reset, gauges and a classic histogram family, read back', async () => {
    const t0 = Date.now() - 60_000;
    const run = await createRun(server, { startedAt: iso(t0) });
    const own = { meshbench_run: run.id, job: 'istiod', instance: '10.0.0.1:15014' };
    const at = (s: number) => t0 + s * 1000;
    const counter = [10, 15, 22, 4, 9].map((value, i) => ({ value, timestamp: at(i + 1) }));
    const bucket = (le: string, values: number[]) => ({
      labels: labels('lat_seconds_bucket', { ...own, le }),
      samples: values.map((value, i) => ({ value, timestamp: at(i + 1) })),
    });
    const answer = await v1({
      timeseries: [
        { labels: labels('pilot_xds_pushes_total', own), samples: counter },
        {
          labels: labels('pilot_proxies', own),
          samples: [
            { value: 42, timestamp: at(1) },
            { value: 40, timestamp: at(2) },
          ],
        },
        bucket('0.1', [1, 2]),
        bucket('0.5', [3, 5]),
        bucket('+Inf', [4, 7]),
        {
          labels: labels('lat_seconds_sum', own),
          samples: [
            { value: 1.2, timestamp: at(1) },
            { value: 2, timestamp: at(2) },
          ],
        },
        {
          labels: labels('lat_seconds_count', own),
          samples: [
            { value: 4, timestamp: at(1) },
            { value: 7, timestamp: at(2) },
          ],
        },
      ],
    });
    expect(answer).toMatchObject({ status: 204, samples: null, histograms: null });
    const list = await series(server, run.id);
    expect(list.map((s) => s.name).sort()).toEqual([
      'lat_seconds',
      'pilot_proxies',
      'pilot_xds_pushes_total',
    ]);
    // No start in 1.0: the first point is the reference; then +5, +7, a reset (4 whole), +5.
    const pushes = named(list, 'pilot_xds_pushes_total');
    expect(pushes).toMatchObject({ kind: 'counter', source: 'prometheus' });
    expect(pushes.stats.sum).toBe(21);
    expect(pushes.tags).toEqual({ job: 'istiod', instance: '10.0.0.1:15014' });
    expect(named(list, 'pilot_proxies').stats).toMatchObject({ last: 40, min: 40, max: 42 });
    // Between the two points: 3 observations, (0,0.1] 1, (0.1,0.5] 1, (0.5,+Inf) 1; sum 0.8.
    const lat = named(list, 'lat_seconds');
    expect(lat.kind).toBe('histogram');
    expect(lat.tags).toEqual({ job: 'istiod', instance: '10.0.0.1:15014' });
    expect(lat.stats.count).toBe(3);
    expect(lat.stats.sum).toBeCloseTo(0.8, 12);
    const p50 = lat.stats.percentiles?.find((p) => p.p === 50);
    expect(p50).toMatchObject({ exact: false, lower: 0.1, upper: 0.5 });
  });

  it('1.0: a classic histogram of le="+Inf" alone is read back with its count and no percentile', async () => {
    const t0 = Date.now() - 60_000;
    const run = await createRun(server, { startedAt: iso(t0) });
    const own = { meshbench_run: run.id, job: 'istiod' };
    const at = (s: number) => t0 + s * 1000;
    const two = (a: number, b: number) => [
      { value: a, timestamp: at(1) },
      { value: b, timestamp: at(2) },
    ];
    const answer = await v1({
      timeseries: [
        { labels: labels('wait_seconds_bucket', { ...own, le: '+Inf' }), samples: two(4, 9) },
        { labels: labels('wait_seconds_sum', own), samples: two(1.5, 4) },
        { labels: labels('wait_seconds_count', own), samples: two(4, 9) },
      ],
    });
    expect(answer.status).toBe(204);
    // One bucket (-inf, +inf): 5 observations between the points, sum 2.5, and nothing that
    // says where any of them lies (the list answered 500 before: a percentile without value).
    const wait = named(await series(server, run.id), 'wait_seconds');
    expect(wait.kind).toBe('histogram');
    expect(wait.stats.count).toBe(5);
    expect(wait.stats.sum).toBeCloseTo(2.5, 12);
    expect(wait.stats.percentiles ?? []).toEqual([]);
  });

  it('1.0: metadata sent apart (as Prometheus does) is kept per project and read with later series', async () => {
    const t0 = Date.now() - 60_000;
    const run = await createRun(server, { startedAt: iso(t0) });
    const at = (s: number) => t0 + s * 1000;
    const family = unique('pilot_xds_pushes').replace(/-/g, '_');
    const gaugeFamily = unique('config_size').replace(/-/g, '_');
    // First a request of metadata alone: a counter whose name lacks _total, and a gauge with
    // a unit.
    const meta = await v1({
      metadata: [
        { type: 1, metricFamilyName: family, help: 'xDS pushes', unit: '' },
        { type: 2, metricFamilyName: gaugeFamily, help: 'config size', unit: 'bytes' },
      ],
    });
    expect(meta.status).toBe(204);
    const samples = (values: number[]) =>
      values.map((value, i) => ({ value, timestamp: at(i + 1) }));
    const answer = await v1({
      timeseries: [
        { labels: labels(family, { meshbench_run: run.id }), samples: samples([10, 15, 22, 4, 9]) },
        { labels: labels(gaugeFamily, { meshbench_run: run.id }), samples: samples([7, 5]) },
      ],
    });
    expect(answer.status).toBe(204);
    const list = await series(server, run.id);
    // A counter by the kept type: the first point the reference, then +5, +7, a reset
    // (4 whole), +5 = 21. Read by its name alone it would be a gauge whose last is 9.
    const pushes = named(list, family);
    expect(pushes.kind).toBe('counter');
    expect(pushes.stats.sum).toBe(21);
    expect(named(list, gaugeFamily)).toMatchObject({ kind: 'gauge', unit: 'By' });

    // Another project's token, the same family without metadata: read by its name.
    const p = await server.json(
      '/projects',
      jsonBody({ name: unique('metadata'), visibility: 'private' }),
      projectAnswer,
    );
    const t = await server.json(
      `/projects/${p.body.id}/tokens`,
      jsonBody({ name: 'prometheus' }),
      createdToken,
    );
    const theirs = await createRun(server, { startedAt: iso(t0), project: p.body.id });
    const written = await v1(
      {
        timeseries: [
          { labels: labels(family, { meshbench_run: theirs.id }), samples: samples([10, 15]) },
        ],
      },
      t.body.token,
    );
    expect(written.status).toBe(204);
    expect(named(await series(server, theirs.id), family).kind).toBe('gauge');
  });

  it('1.0: a histogram family typed by kept metadata and split across requests is one histogram', async () => {
    const t0 = Date.now() - 60_000;
    const run = await createRun(server, { startedAt: iso(t0) });
    const own = { meshbench_run: run.id, job: 'istiod' };
    const at = (s: number) => t0 + s * 1000;
    const family = unique('push_seconds').replace(/-/g, '_');
    // The family's type kept from a metadata request, as Prometheus sends it apart.
    expect(
      (await v1({ metadata: [{ type: 3, metricFamilyName: family, help: '', unit: '' }] })).status,
    ).toBe(204);
    const two = (a: number, b: number) => [
      { value: a, timestamp: at(1) },
      { value: b, timestamp: at(2) },
    ];
    // One shard sends the buckets, another the sum and count of the same scrapes.
    const buckets = await v1({
      timeseries: [
        { labels: labels(`${family}_bucket`, { ...own, le: '0.1' }), samples: two(3, 5) },
        { labels: labels(`${family}_bucket`, { ...own, le: '+Inf' }), samples: two(4, 9) },
      ],
    });
    expect(buckets.status).toBe(204);
    const sumCount = await v1({
      timeseries: [
        { labels: labels(`${family}_sum`, own), samples: two(1.5, 4) },
        { labels: labels(`${family}_count`, own), samples: two(4, 9) },
      ],
    });
    expect(sumCount.status).toBe(204);
    const list = await series(server, run.id);
    // One histogram of the parts of both requests: 5 observations between the points, 2 of
    // them <= 0.1 s, their sum 4 - 1.5 (before, the sum and count stayed series apart, and a
    // histogram point of them at the buckets' times was dropped as a retry).
    expect(list.map((s) => s.name)).toEqual([family]);
    const histogram = named(list, family);
    expect(histogram.kind).toBe('histogram');
    expect(histogram.stats.count).toBe(5);
    expect(histogram.stats.sum).toBeCloseTo(2.5, 12);
  });

  it('2.0: start timestamps, metadata types and native histograms, read back', async () => {
    const t0 = Date.now() - 60_000;
    const run = await createRun(server, { startedAt: iso(t0) });
    const at = (s: number) => t0 + s * 1000;
    const own = { __name__: '', meshbench_run: run.id, pod: 'istiod-1' };
    const body = requestV2([
      {
        // A counter without _total, typed by its metadata, started after the run began:
        // 10, 15, 22 count whole; the reset starts a new stream at 4, then 9: 22 + 9.
        labels: { ...own, __name__: 'pilot_xds_pushes' },
        metadata: { type: 1, help: 'pushes', unit: '' },
        exemplars: [
          { labels: { trace_id: 'abc123' }, value: 1, timestamp: at(6) + 10 },
          { labels: { trace_id: 'def456', span_id: 's1' }, value: 2, timestamp: at(7) - 10 },
        ],
        samples: [
          { value: 10, timestamp: at(2), startTimestamp: at(1) },
          { value: 15, timestamp: at(3), startTimestamp: at(1) },
          { value: 22, timestamp: at(4), startTimestamp: at(1) },
          { value: 4, timestamp: at(6), startTimestamp: at(5) },
          { value: 9, timestamp: at(7), startTimestamp: at(5) },
        ],
      },
      {
        // Exponential, schema 0: zero bucket 1, (0.5,1] 1, (1,2] 2: count 4.
        labels: { ...own, __name__: 'push_seconds' },
        metadata: { type: 3, unit: 'seconds' },
        histograms: [
          {
            countInt: 4,
            sum: 4.5,
            schema: 0,
            zeroThreshold: 1e-128,
            zeroCountInt: 1,
            positiveSpans: [{ offset: 0, length: 2 }],
            positiveDeltas: [1, 1],
            timestamp: at(2),
            startTimestamp: at(1),
          },
        ],
      },
      {
        // Custom buckets (-53): (-inf,0.1] 2, (0.1,0.5] 3, (0.5,1] 2, (1,+Inf) 2: count 9.
        labels: { ...own, __name__: 'config_bytes' },
        histograms: [
          {
            countInt: 9,
            sum: 7,
            schema: -53,
            customValues: [0.1, 0.5, 1],
            positiveSpans: [{ offset: 0, length: 4 }],
            positiveDeltas: [2, 1, -1, 0],
            timestamp: at(2),
            startTimestamp: at(1),
          },
        ],
      },
    ]);
    const answer = await v2(body);
    expect(answer).toMatchObject({ status: 204, samples: 5, histograms: 2, exemplars: 2 });
    const list = await series(server, run.id);
    const pushes = named(list, 'pilot_xds_pushes');
    expect(pushes.kind).toBe('counter');
    expect(pushes.stats.sum).toBe(31);
    // The exemplars went with the series' last point, as sent.
    const exemplars = await server.json(
      `/runs/${run.id}/series/${pushes.id}/exemplars`,
      undefined,
      seriesExemplars,
    );
    expect(exemplars.body).toEqual([
      { t: iso(at(6) + 10), offsetMs: 6010, value: 1, labels: { trace_id: 'abc123' } },
      {
        t: iso(at(7) - 10),
        offsetMs: 6990,
        value: 2,
        labels: { trace_id: 'def456', span_id: 's1' },
      },
    ]);
    const push = named(list, 'push_seconds');
    expect(push).toMatchObject({ kind: 'exponential_histogram', unit: 's' });
    expect(push.stats).toMatchObject({ count: 4, sum: 4.5 });
    // Rank 2 of 4: after the zero bucket, in (0.5, 1] (bounds widened by float error only).
    const pushP50 = push.stats.percentiles?.find((p) => p.p === 50);
    expect(pushP50?.method).toBe('exponential-histogram');
    expect(pushP50?.lower).toBeCloseTo(0.5, 9);
    expect(pushP50?.upper).toBeCloseTo(1, 9);
    const config = named(list, 'config_bytes');
    expect(config).toMatchObject({ kind: 'histogram' });
    expect(config.stats).toMatchObject({ count: 9, sum: 7 });
    // Rank 5 of 9: 2 in the first bucket, 3 more in (0.1, 0.5].
    expect(config.stats.percentiles?.find((p) => p.p === 50)).toMatchObject({
      method: 'explicit-histogram',
      lower: 0.1,
      upper: 0.5,
    });
  });

  it('gauge histograms (ResetHint GAUGE, or typed GAUGEHISTOGRAM; int and float): each sample a distribution at its time', async () => {
    const t0 = Date.now() - 60_000;
    const run = await createRun(server, { startedAt: iso(t0) });
    const at = (s: number) => t0 + s * 1000;
    const own = { __name__: '', meshbench_run: run.id };
    // Schema 0 buckets (0.5,1] and (1,2]. The queue's distribution goes 5, then 3, then 8
    // entries: a cumulative histogram would read the drop as a reset and add 5 + 3 + 8.
    const snapshot = (a: number, b: number, t: number) => ({
      countInt: a + b,
      sum: a * 0.75 + b * 1.5,
      schema: 0,
      positiveSpans: [{ offset: 0, length: 2 }],
      positiveDeltas: [a, b - a],
      resetHint: 3,
      timestamp: at(t),
    });
    const answer = await v2(
      requestV2([
        {
          labels: { ...own, __name__: 'queue_depth_2' },
          histograms: [snapshot(4, 1, 2), snapshot(1, 2, 4), snapshot(2, 6, 6)],
        },
        {
          // Float counts, typed by the series' metadata (MetricType GAUGEHISTOGRAM = 4).
          labels: { ...own, __name__: 'queue_float' },
          metadata: { type: 4, unit: '' },
          histograms: [
            {
              countFloat: 2.5,
              sum: 3,
              schema: 0,
              positiveSpans: [{ offset: 0, length: 2 }],
              positiveCounts: [1.5, 1],
              timestamp: at(3),
            },
          ],
        },
      ]),
    );
    expect(answer).toMatchObject({ status: 204, samples: 0, histograms: 4 });
    // 1.0 carries native histograms too, with the same reset hint.
    const v1answer = await v1({
      timeseries: [
        {
          labels: labels('queue_depth_1', { meshbench_run: run.id }),
          histograms: [snapshot(4, 1, 2), snapshot(1, 2, 4), snapshot(2, 6, 6)],
        },
      ],
    });
    expect(v1answer.status).toBe(204);
    const list = await series(server, run.id);
    for (const name of ['queue_depth_2', 'queue_depth_1']) {
      const depth = named(list, name);
      // The run's figures are the last snapshot's: 8 entries, 2 in (0.5,1] and 6 in (1,2].
      expect(depth.kind).toBe('gauge_histogram');
      expect(depth.stats).toMatchObject({ count: 8, sum: 2 * 0.75 + 6 * 1.5 });
      // Rank 4 of 8 falls in (1, 2]; had the snapshots been added (16: 7 then 9), rank 8 in (0.5, 1].
      const p50 = depth.stats.percentiles?.find((p) => p.p === 50);
      expect(p50?.lower).toBeCloseTo(1, 9);
      expect(p50?.upper).toBeCloseTo(2, 9);
      // Each point is its own snapshot, at its time.
      const points = await server.json(
        `/runs/${run.id}/series/${depth.id}/points?points=60`,
        undefined,
        seriesPoints,
      );
      expect(points.body.points.map((p) => [p.offsetMs, p.count])).toEqual([
        [2000, 5],
        [4000, 3],
        [6000, 8],
      ]);
    }
    const float = named(list, 'queue_float');
    expect(float.kind).toBe('gauge_histogram');
    expect(float.stats).toMatchObject({ count: 2.5, sum: 3 });
    // Rank ceil(0.5 * 2.5) = 2: past the 1.5 in (0.5, 1], in (1, 2].
    const fp50 = float.stats.percentiles?.find((p) => p.p === 50);
    expect(fp50?.lower).toBeCloseTo(1, 9);
    expect(fp50?.upper).toBeCloseTo(2, 9);
  });

  it('answers 415 for other messages and encodings, 401 without a token', async () => {
    const body = compress(encodeV1({ timeseries: [] }));
    for (const type of [
      'application/json',
      'application/x-protobuf;proto=io.prometheus.write.v3.Request',
    ]) {
      const a = await postWrite(server.url, server.token, body, type);
      expect(a.status).toBe(415);
      expect(a.text).toMatch(/application\/x-protobuf|proto=/);
    }
    for (const encoding of ['gzip', 'identity']) {
      const a = await postWrite(server.url, server.token, body, CONTENT_TYPE_V1, {
        'content-encoding': encoding,
      });
      expect(a.status).toBe(415);
      expect(a.text).toMatch(/snappy/);
    }
    const anonymous = await fetch(`${server.url}/api/v1/write`, {
      method: 'POST',
      headers: { 'content-type': CONTENT_TYPE_V1, 'content-encoding': 'snappy' },
      body,
    });
    expect(anonymous.status).toBe(401);
  });

  it('never answers 2xx after a partial write: 400 with what was written and why', async () => {
    const run = await createRun(server, { startedAt: iso(Date.now() - 60_000) });
    const t = Date.now() - 30_000;
    const answer = await v2(
      requestV2([
        {
          labels: { __name__: 'up', meshbench_run: run.id },
          samples: [{ value: 1, timestamp: t }],
        },
        { labels: { job: 'x' }, samples: [{ value: 1, timestamp: t }] },
      ]),
    );
    expect(answer).toMatchObject({ status: 400, samples: 1, histograms: 0, exemplars: 0 });
    expect(answer.text).toContain('1 sample(s): a series without a __name__ label');
    expect(named(await series(server, run.id), 'up').stats.last).toBe(1);

    const broken = await postWrite(server.url, server.token, Buffer.from([5, 1, 2]));
    expect(broken.status).toBe(400);
  });

  it("refuses a run of another project, and keeps a token's samples to its project", async () => {
    const p = await server.json(
      '/projects',
      jsonBody({ name: unique('prw'), visibility: 'private' }),
      projectAnswer,
    );
    const t = await server.json(
      `/projects/${p.body.id}/tokens`,
      jsonBody({ name: 'prometheus' }),
      createdToken,
    );
    const other = await createRun(server, { startedAt: iso(Date.now() - 60_000) });
    const answer = await v1(
      {
        timeseries: [
          {
            labels: labels('up', { meshbench_run: other.id }),
            samples: [{ value: 1, timestamp: Date.now() - 1000 }],
          },
        ],
      },
      t.body.token,
    );
    expect(answer).toMatchObject({ status: 400 });
    expect(answer.text).toMatch(/may not write/);
    expect(await series(server, other.id)).toEqual([]);
  });

  it('keeps samples of an environment for a run created later, and stores a retry once', async () => {
    const environment = unique('env');
    const t0 = Date.now() - 60_000;
    const at = (s: number) => t0 + s * 1000;
    const message = {
      timeseries: [
        {
          labels: labels('raft_apply_total', { env: environment }),
          samples: [
            { value: 100, timestamp: at(1) },
            { value: 103, timestamp: at(3) },
            { value: 110, timestamp: at(5) },
          ],
        },
      ],
    };
    expect((await v1(message)).status).toBe(204);
    expect((await v1(message)).status).toBe(204);
    // The run starts at 2 s: 100 is its reference, 103 and 110 its increases (+3, +7).
    const run = await createRun(server, { environment, startedAt: iso(at(2)) });
    const raft = named(await series(server, run.id), 'raft_apply_total', { env: environment });
    expect(raft.stats.sum).toBe(10);
    // Sent again once the run exists: already stored, acknowledged, counted once.
    expect((await v1(message)).status).toBe(204);
    expect(named(await series(server, run.id), 'raft_apply_total').stats.sum).toBe(10);
  });
});
