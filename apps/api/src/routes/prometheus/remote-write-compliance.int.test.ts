// The receiver cases of prometheus/compliance (remotewrite/receiver/*_test.go at commit
// 67b8327a2e93dc28f64d4b21bbce00b362f565d5), ported case by case with their request
// generator (generateRequest: one TimeSeries per sample or histogram, exemplars attached to
// the first, or last, sample of their label set, metadata by metric name, what is left over
// as series of its own, the created timestamp in the deprecated TimeSeries field 6 as that
// suite's Prometheus version sends it) and their check (validateResponse). Upstream's check
// tolerates a 400 for any case; each case here is also held to the stricter reading: 2xx
// exactly where upstream expects success (204 for its "returns 204" variants), 4xx where it
// expects failure, and the Written headers equal to what it expects on a 2xx.
import { describe, expect, it } from 'vitest';
import { useServer } from '../../test/harness.ts';
import {
  CONTENT_TYPE_V1,
  CONTENT_TYPE_V2,
  compress,
  encodeV1,
  encodeV2,
  postWrite,
  requestV2,
  type SeriesV2,
  type WriteAnswer,
} from '../../test/remote-write-proto.ts';
import { scratchBackends } from '../../test/scratch-database.ts';

type Labels = Record<string, string>;
interface Sample {
  labels: Labels;
  value: number;
  offsetMs?: number;
  createdMs?: number;
}
interface Hist {
  labels: Labels;
  histogram: Record<string, unknown>;
  offsetMs?: number;
  createdMs?: number;
}
interface Ex {
  labels: Labels;
  exemplarLabels: Labels;
  value: number;
  offsetMs?: number;
}
interface Meta {
  labels: Labels;
  type: number;
  help: string;
  unit: string;
}
interface Opts {
  samples?: Sample[];
  histograms?: Hist[];
  exemplars?: Ex[];
  metadata?: Meta[];
  unsafe?: boolean;
}
interface Params {
  samples?: number;
  exemplars?: number;
  histograms?: number;
  retryable?: boolean;
  exactCode?: number;
}
interface Built {
  body: Uint8Array;
  contentType: string;
  headers?: Record<string, string>;
}
interface Case {
  name: string;
  build: () => Built;
  params: Params;
  success: boolean;
  strict: boolean;
}

const TYPE = {
  unspecified: 0,
  counter: 1,
  gauge: 2,
  histogram: 3,
  gaugeHistogram: 4,
  summary: 5,
  info: 6,
  stateset: 7,
};
const HOUR = 3_600_000;
const MINUTE = 60_000;
const STALE_NAN = Buffer.from([2, 0, 0, 0, 0, 0, 0xf0, 0x7f]).readDoubleLE(0);

const sameLabels = (a: Labels, b: Labels) => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
};
const key = (l: Labels) => JSON.stringify(Object.entries(l).sort(([x], [y]) => (x < y ? -1 : 1)));

/** helpers_test.go generateRequest. */
function generateRequest(opts: Opts): Built {
  const now = Date.now();
  const samples = opts.samples ?? [];
  const histograms = opts.histograms ?? [];
  const exemplars = opts.exemplars ?? [];
  const metadata = opts.metadata ?? [];
  const byName = new Map<string, Meta>();
  for (const m of metadata) {
    const name = m.labels.__name__ ?? '';
    if (name !== '' || opts.unsafe) byName.set(name, m);
  }
  const used = new Set<number>();
  const series: SeriesV2[] = [];
  const exemplarsFor = (labels: Labels, last: boolean) => {
    const out: SeriesV2['exemplars'] = [];
    exemplars.forEach((e, i) => {
      if (used.has(i) || !sameLabels(labels, e.labels)) return;
      if (!last && out.length > 0) return;
      out.push({ labels: e.exemplarLabels, value: e.value, timestamp: now + (e.offsetMs ?? 0) });
      used.add(i);
    });
    return out;
  };
  const metaOf = (labels: Labels) => {
    const name = labels.__name__ ?? '';
    const m = name !== '' || opts.unsafe ? byName.get(name) : undefined;
    return m ? { metadata: { type: m.type, help: m.help, unit: m.unit } } : {};
  };
  const lastSample = new Map<string, number>();
  for (const [i, s] of samples.entries()) lastSample.set(key(s.labels), i);
  samples.forEach((s, i) => {
    series.push({
      labels: s.labels,
      samples: [{ value: s.value, timestamp: now + (s.offsetMs ?? 0) }],
      exemplars: exemplarsFor(s.labels, lastSample.get(key(s.labels)) === i),
      ...(s.createdMs ? { createdTimestamp: s.createdMs } : {}),
      ...metaOf(s.labels),
    });
  });
  const lastHist = new Map<string, number>();
  for (const [i, h] of histograms.entries()) lastHist.set(key(h.labels), i);
  histograms.forEach((h, i) => {
    series.push({
      labels: h.labels,
      histograms: [{ ...h.histogram, timestamp: now + (h.offsetMs ?? 0) }],
      exemplars: exemplarsFor(h.labels, lastHist.get(key(h.labels)) === i),
      ...(h.createdMs ? { createdTimestamp: h.createdMs } : {}),
      ...metaOf(h.labels),
    });
  });
  exemplars.forEach((e, i) => {
    if (used.has(i)) return;
    const matched =
      samples.some((s) => sameLabels(s.labels, e.labels)) ||
      histograms.some((h) => sameLabels(h.labels, e.labels));
    if (matched) return;
    series.push({
      labels: e.labels,
      exemplars: [{ labels: e.exemplarLabels, value: e.value, timestamp: now + (e.offsetMs ?? 0) }],
    });
  });
  for (const m of metadata) {
    const name = m.labels.__name__ ?? '';
    if (name === '') continue;
    const matched =
      samples.some((s) => s.labels.__name__ === name) ||
      histograms.some((h) => h.labels.__name__ === name);
    if (!matched) {
      series.push({ labels: m.labels, metadata: { type: m.type, help: m.help, unit: m.unit } });
    }
  }
  return { body: compress(encodeV2(requestV2(series))), contentType: CONTENT_TYPE_V2 };
}

/** helpers_test.go histogram(): the same spans, deltas and counts. */
function histogram(
  sum: number,
  positive: boolean,
  negative: boolean,
  zero: boolean,
  custom: boolean,
  badCount: boolean,
): Record<string, unknown> {
  let count = 0;
  const h: Record<string, unknown> = { sum };
  if (positive) {
    h.positiveSpans = [
      { offset: 0, length: 3 },
      { offset: 2, length: 2 },
    ];
    h.positiveDeltas = [1, 2, 1, 3, 1];
    count += 23;
  }
  if (negative) {
    h.negativeSpans = [{ offset: 0, length: 2 }];
    h.negativeDeltas = [1, 1];
    count += 3;
  }
  if (zero) {
    h.zeroCountInt = 1;
    count += 1;
  }
  if (custom) {
    h.schema = -53;
    h.customValues = [0.1, 0.5, 1.0, 2.5, 5.0, 10.0];
    h.positiveSpans = [{ offset: 0, length: 6 }];
    h.positiveDeltas = [2, 1, 2, 3, -1, -2];
    count = 30;
  }
  if (badCount) count = 99;
  h.countInt = count;
  return h;
}

/** A body whose first byte is '0' (request_test.go corruptRequestBody). */
function corrupt(built: Built, byte = 0x30): Built {
  const body = Buffer.from(built.body);
  body[0] = byte;
  return { ...built, body };
}

const basic = (name: string): Labels => ({ __name__: name });
const jobInstance = (): Labels => ({ __name__: 'up', job: 'testjob', instance: 'localhost:9090' });

const cases: Case[] = [];
/** runComplianceTest: a strict "returns 204" variant when success is expected, and the basic one. */
function compliance(name: string, opts: Opts, params: Params, success: boolean) {
  if (success) {
    cases.push({
      name: `${name} returns 204`,
      build: () => generateRequest(opts),
      params,
      success,
      strict: true,
    });
  }
  cases.push({ name, build: () => generateRequest(opts), params, success, strict: false });
}
/** runRequest with its own parameters. */
function direct(name: string, build: () => Built, params: Params, success: boolean) {
  cases.push({ name, build, params, success, strict: false });
}

// request_test.go
for (const type of ['application/json', 'image/png']) {
  direct(
    `TestBadContentTypes/${type}`,
    () => ({
      ...corrupt(generateRequest({ samples: [{ labels: basic('up'), value: 1 }] })),
      contentType: type,
    }),
    { exactCode: 415 },
    false,
  );
}
for (const encoding of ['gzip', 'deflate']) {
  direct(
    `TestBadContentEncodings/${encoding}`,
    () => ({
      ...corrupt(generateRequest({ samples: [{ labels: basic('up'), value: 1 }] })),
      headers: { 'content-encoding': encoding },
    }),
    { exactCode: 415 },
    false,
  );
}
direct(
  'TestCorruptRequestBody',
  () => corrupt(generateRequest({ samples: [{ labels: basic('up'), value: 1 }] })),
  {},
  false,
);

// rw1_compat_test.go
const rw1 = (samples: Sample[]): Built => ({
  body: compress(
    encodeV1({
      timeseries: samples.map((s) => ({
        labels: Object.entries(s.labels).map(([name, value]) => ({ name, value })),
        samples: [{ value: s.value, timestamp: Date.now() + (s.offsetMs ?? 0) }],
      })),
    }),
  ),
  contentType: CONTENT_TYPE_V1,
});
direct(
  'TestRW1BasicCompatibility',
  () =>
    rw1([
      { labels: jobInstance(), value: 1 },
      { labels: basic('http_requests_total'), value: 100 },
    ]),
  { samples: 0 },
  true,
);
direct(
  'TestRW1ErrorHandling',
  () => corrupt(rw1([{ labels: basic('error_test'), value: 1 }]), 0xff),
  {},
  false,
);

// metric_test.go
const values: [string, number][] = [
  ['1.0', 1],
  ['StaleNaN', STALE_NAN],
  ['NaN', Number.NaN],
  ['Inf', Number.POSITIVE_INFINITY],
  ['-Inf', Number.NEGATIVE_INFINITY],
];
for (const [k, v] of values) {
  const single: [string, Labels, boolean][] = [
    ['simple metric', basic('up'), true],
    ['simple metric with multiple labels', jobInstance(), true],
    [
      'simple metric with newlines',
      { __name__: 'up', job: 'test\njob\n', instance: 'localhost:9090' },
      true,
    ],
    [
      'simple metric with dots',
      { __name__: 'resource.cpu.usage', 'job.name': 'testjob', 'instance.name': 'localhost:9090' },
      true,
    ],
    [
      'simple metric with spaces',
      { __name__: 'resource cpu usage', 'job name': 'testjob', 'instance name': 'localhost:9090' },
      true,
    ],
    ['simple metric without name label', { job: 'testjob', instance: 'localhost:9090' }, false],
    ['empty metric', {}, false],
  ];
  for (const [name, labels, success] of single) {
    compliance(
      `TestSingleMetric/${k}/${name}`,
      { samples: [{ labels, value: v }] },
      { samples: 1 },
      success,
    );
  }
  const up = (instance: string, named = true): Sample => ({
    labels: { ...(named ? { __name__: 'up' } : {}), job: 'testjob', instance },
    value: v,
  });
  const ports = ['9090', '9091', '9092', '9093'].map((p) => `localhost:${p}`);
  compliance(
    `TestMultipleMetrics/${k}/multiple metrics`,
    { samples: ports.map((p) => up(p)) },
    { samples: 4 },
    true,
  );
  compliance(
    `TestMultipleMetrics/${k}/multiple metrics, without name label`,
    { samples: ports.map((p) => up(p, false)) },
    { samples: 0 },
    false,
  );
  compliance(
    `TestMultipleMetrics/${k}/multiple metrics, 1 without name label`,
    { samples: ports.map((p, i) => up(p, i !== 0)) },
    { samples: 3 },
    false,
  );
}
compliance(
  'TestCounterWithCreatedTimestamp',
  {
    samples: [
      {
        labels: { __name__: 'http_requests_total', job: 'api' },
        value: 100,
        createdMs: Date.now() - HOUR,
      },
    ],
  },
  { samples: 1 },
  true,
);

// histograms_test.go
const histCases: [string, Labels, boolean, boolean, boolean, boolean, boolean, boolean][] = [
  ['basic_histogram', basic('test_histogram'), true, true, true, false, true, false],
  ['custom_buckets_histogram', basic('test_histogram'), true, false, false, true, true, false],
  [
    'positive_only_histogram',
    { __name__: 'test_histogram', job: 'test' },
    true,
    false,
    true,
    false,
    true,
    false,
  ],
  [
    'negative_only_histogram',
    { __name__: 'test_histogram', instance: 'localhost' },
    false,
    true,
    false,
    false,
    true,
    false,
  ],
  ['minimal_histogram', basic('minimal_hist'), false, false, true, false, true, false],
  ['bad_count_histogram', basic('minimal_hist'), true, false, false, false, false, true],
];
for (const [name, labels, pos, neg, zero, custom, success, bad] of histCases) {
  compliance(
    `TestHistograms/${name}`,
    { histograms: [{ labels, histogram: histogram(1.0, pos, neg, zero, custom, bad) }] },
    { histograms: 1 },
    success,
  );
}
compliance(
  'TestHistogramWithCreatedTimestamp',
  {
    histograms: [
      {
        labels: { __name__: 'request_duration_seconds', job: 'api' },
        histogram: histogram(1.5, true, true, true, false, false),
        createdMs: Date.now() - 30 * MINUTE,
      },
    ],
  },
  { histograms: 1 },
  true,
);
compliance(
  'TestMultipleHistograms',
  {
    histograms: [
      {
        labels: { __name__: 'hist1', job: 'test' },
        histogram: histogram(10.5, true, false, true, false, false),
      },
      {
        labels: { __name__: 'hist2', job: 'test' },
        histogram: histogram(5.2, false, true, false, false, false),
      },
    ],
  },
  { histograms: 2 },
  true,
);
compliance(
  'TestEmptyHistogram',
  {
    histograms: [
      { labels: basic('empty_hist'), histogram: histogram(0, false, false, false, false, false) },
    ],
  },
  { histograms: 1 },
  true,
);
{
  const labels = { __name__: 'request_duration_seconds', job: 'api' };
  compliance(
    'TestHistogramWithMetadata',
    {
      histograms: [{ labels, histogram: histogram(2.5, true, true, true, false, false) }],
      metadata: [
        {
          labels: basic('request_duration_seconds'),
          type: TYPE.histogram,
          help: 'HTTP request duration in seconds',
          unit: 'seconds',
        },
      ],
    },
    { histograms: 1 },
    true,
  );
}
{
  const labels = { __name__: 'http_request_duration_seconds', method: 'GET' };
  compliance(
    'TestHistogramWithExemplar',
    {
      histograms: [{ labels, histogram: histogram(1.23, true, false, true, false, false) }],
      exemplars: [
        { labels, exemplarLabels: { trace_id: 'abc123def456', span_id: 'span789' }, value: 1.23 },
      ],
    },
    { histograms: 1, exemplars: 1 },
    true,
  );
}
{
  const labels = { __name__: 'response_size_bytes', service: 'upload' };
  compliance(
    'TestHistogramWithMetadataAndExemplar',
    {
      histograms: [{ labels, histogram: histogram(10485760, true, true, true, false, false) }],
      metadata: [
        {
          labels: basic('response_size_bytes'),
          type: TYPE.histogram,
          help: 'HTTP response size in bytes',
          unit: 'bytes',
        },
      ],
      exemplars: [
        {
          labels,
          exemplarLabels: { trace_id: 'large_upload_trace', user_id: 'user456' },
          value: 10485760,
        },
      ],
    },
    { histograms: 1, exemplars: 1 },
    true,
  );
}
compliance(
  'TestMultipleHistogramsWithMetadata',
  {
    histograms: [
      {
        labels: { __name__: 'cpu_usage_histogram', instance: 'server1' },
        histogram: histogram(0.75, true, false, true, false, false),
      },
      {
        labels: { __name__: 'memory_usage_histogram', instance: 'server1' },
        histogram: histogram(8589934592, true, true, false, false, false),
      },
    ],
    metadata: [
      {
        labels: basic('cpu_usage_histogram'),
        type: TYPE.histogram,
        help: 'CPU usage distribution',
        unit: 'ratio',
      },
      {
        labels: basic('memory_usage_histogram'),
        type: TYPE.histogram,
        help: 'Memory usage distribution',
        unit: 'bytes',
      },
    ],
  },
  { histograms: 2 },
  true,
);

// exemplar_test.go
const exemplarCases: [string, Labels, Labels, number][] = [
  [
    'basic_exemplar',
    { __name__: 'http_requests_total', job: 'api' },
    { trace_id: 'abc123def456' },
    1,
  ],
  [
    'exemplar_with_span_id',
    { __name__: 'request_duration_seconds', method: 'GET' },
    { trace_id: 'xyz789', span_id: 'span123' },
    0.125,
  ],
  [
    'exemplar_without_trace_id',
    { __name__: 'cpu_usage', instance: 'host1' },
    { user_id: 'user123' },
    0.85,
  ],
  [
    'exemplar_with_multiple_labels',
    { __name__: 'request_latency', service: 'auth' },
    { trace_id: 'trace456', user: 'admin', endpoint: '/login' },
    0.05,
  ],
  ['exemplar_no_labels', basic('simple_counter'), {}, 1],
  [
    'exemplar_with_special_chars',
    basic('test_metric'),
    { trace_id: 'trace-with-dashes_and_underscores.123' },
    42,
  ],
  [
    'exemplar_with_unicode',
    { __name__: 'unicode_test', region: '🌍' },
    { trace_id: 'unicode_trace_测试' },
    100,
  ],
];
for (const [name, labels, exemplarLabels, value] of exemplarCases) {
  compliance(
    `TestExemplars/${name}`,
    { samples: [{ labels, value }], exemplars: [{ labels, exemplarLabels, value }] },
    { samples: 1, exemplars: 1 },
    true,
  );
}
{
  const labels = { __name__: 'http_requests_total', job: 'api' };
  compliance(
    'TestExemplarWithCreatedTimestamp',
    {
      samples: [{ labels, value: 250, createdMs: Date.now() - 2 * HOUR }],
      exemplars: [
        { labels, exemplarLabels: { trace_id: 'abc123', span_id: 'span456' }, value: 250 },
      ],
    },
    { samples: 1, exemplars: 1 },
    true,
  );
}
{
  const a = { __name__: 'request_duration', method: 'GET' };
  const b = { __name__: 'request_duration', method: 'POST' };
  const c = { __name__: 'error_count', service: 'payment' };
  compliance(
    'TestMultipleExemplars',
    {
      samples: [
        { labels: a, value: 0.1 },
        { labels: b, value: 0.25 },
        { labels: c, value: 1 },
      ],
      exemplars: [
        { labels: a, exemplarLabels: { trace_id: 'trace1', span_id: 'span1' }, value: 0.1 },
        { labels: b, exemplarLabels: { trace_id: 'trace2', span_id: 'span2' }, value: 0.25 },
        { labels: c, exemplarLabels: { trace_id: 'trace3', user: 'test_user' }, value: 1 },
      ],
    },
    { samples: 3, exemplars: 3 },
    true,
  );
}
{
  const l = basic('latency_hist');
  compliance(
    'TestExemplarTimestamps',
    {
      samples: [
        { labels: l, value: 0.05, offsetMs: -HOUR },
        { labels: l, value: 0.15, offsetMs: -MINUTE },
        { labels: l, value: 0.08 },
      ],
      exemplars: [
        { labels: l, exemplarLabels: { trace_id: 'old_trace' }, value: 0.05, offsetMs: -HOUR },
        { labels: l, exemplarLabels: { trace_id: 'recent_trace' }, value: 0.15, offsetMs: -MINUTE },
        { labels: l, exemplarLabels: { trace_id: 'current_trace' }, value: 0.08 },
      ],
    },
    { samples: 3, exemplars: 3 },
    true,
  );
}
for (const [name, labels, success] of [
  ['exemplar_without_name_label', { job: 'test' }, false],
  ['exemplar_with_empty_name', { __name__: '' }, false],
  ['exemplar_with_valid_name', basic('valid_metric'), true],
] as [string, Labels, boolean][]) {
  direct(
    `TestExemplarValidation/${name}`,
    () =>
      generateRequest({
        samples: [{ labels, value: 1 }],
        exemplars: [{ labels, exemplarLabels: { trace_id: 'test_trace' }, value: 1 }],
      }),
    { samples: 1, exemplars: 1 },
    success,
  );
}
for (const [name, value] of [
  ['zero_value', 0],
  ['negative_value', -123.456],
  ['large_value', 1e10],
  ['small_value', 1e-10],
  ['nan_value', Number.NaN],
  ['inf_value', Number.POSITIVE_INFINITY],
  ['-inf_value', Number.NEGATIVE_INFINITY],
] as [string, number][]) {
  const labels = basic('test_metric');
  compliance(
    `TestExemplarSpecialValues/${name}`,
    {
      samples: [{ labels, value }],
      exemplars: [{ labels, exemplarLabels: { trace_id: 'special_value_trace' }, value }],
    },
    { samples: 1, exemplars: 1 },
    true,
  );
}

// metadata_test.go
const metadataCases: [string, Labels, number, string, string][] = [
  [
    'counter_metadata',
    basic('http_requests_total'),
    TYPE.counter,
    'Total number of HTTP requests',
    'requests',
  ],
  [
    'gauge_metadata',
    basic('cpu_usage_percent'),
    TYPE.gauge,
    'Current CPU usage percentage',
    'percent',
  ],
  [
    'histogram_metadata',
    basic('request_duration_seconds'),
    TYPE.histogram,
    'Request duration in seconds',
    'seconds',
  ],
  ['metadata_no_help_no_unit', basic('simple_counter'), TYPE.counter, '', ''],
  [
    'metadata_with_special_chars',
    { __name__: 'test_metric', job: 'test' },
    TYPE.gauge,
    'Test metric with\nnewlines and "quotes"',
    'bytes/sec',
  ],
  [
    'unspecified_metadata_type',
    basic('unknown_metric'),
    TYPE.unspecified,
    'Unknown metric type',
    '',
  ],
  ['info_metadata_type', basic('build_info'), TYPE.info, 'Build information', ''],
  ['stateset_metadata_type', basic('node_state'), TYPE.stateset, 'Node state information', ''],
  [
    'summary_metadata_type',
    basic('request_latency_summary'),
    TYPE.summary,
    'Request latency summary',
    'seconds',
  ],
  [
    'gauge_histogram_metadata_type',
    basic('temperature_histogram'),
    TYPE.gaugeHistogram,
    'Temperature distribution gauge histogram',
    'celsius',
  ],
];
for (const [name, labels, type, help, unit] of metadataCases) {
  const metadata = [{ labels, type, help, unit }];
  if (type === TYPE.histogram) {
    compliance(
      `TestMetadata/${name}`,
      {
        metadata,
        histograms: [{ labels, histogram: histogram(1.0, true, true, true, false, false) }],
      },
      { histograms: 1 },
      true,
    );
  } else {
    compliance(
      `TestMetadata/${name}`,
      { metadata, samples: [{ labels, value: 1 }] },
      { samples: 1 },
      true,
    );
  }
}
compliance(
  'TestCounterMetadataWithCreatedTimestamp',
  {
    samples: [
      {
        labels: { __name__: 'http_requests_total', job: 'api' },
        value: 150,
        createdMs: Date.now() - HOUR,
      },
    ],
    metadata: [
      {
        labels: basic('http_requests_total'),
        type: TYPE.counter,
        help: 'Total HTTP requests',
        unit: 'requests',
      },
    ],
  },
  { samples: 1 },
  true,
);
compliance(
  'TestMetadataWithSamples',
  {
    samples: [{ labels: { __name__: 'http_requests_total', job: 'test' }, value: 42 }],
    metadata: [
      {
        labels: basic('http_requests_total'),
        type: TYPE.counter,
        help: 'Total HTTP requests',
        unit: 'requests',
      },
    ],
  },
  { samples: 1 },
  true,
);
compliance(
  'TestMultipleMetadata',
  {
    samples: [
      { labels: basic('cpu_usage'), value: 85.5 },
      { labels: basic('memory_usage'), value: 4096000000 },
      { labels: { __name__: 'disk_usage', device: 'sda1' }, value: 75.2 },
    ],
    metadata: [
      {
        labels: basic('cpu_usage'),
        type: TYPE.gauge,
        help: 'CPU usage percentage',
        unit: 'percent',
      },
      {
        labels: basic('memory_usage'),
        type: TYPE.gauge,
        help: 'Memory usage in bytes',
        unit: 'bytes',
      },
      {
        labels: { __name__: 'disk_usage', device: 'sda1' },
        type: TYPE.gauge,
        help: 'Disk usage percentage',
        unit: 'percent',
      },
    ],
  },
  { samples: 3 },
  true,
);
{
  const labels = {
    __name__: 'http_request_duration_seconds',
    job: 'api-server',
    instance: 'localhost:8080',
    method: 'GET',
    status: '200',
    endpoint: '/api/v1/users',
  };
  compliance(
    'TestMetadataWithComplexLabels',
    {
      histograms: [{ labels, histogram: histogram(0.25, true, true, true, false, false) }],
      metadata: [
        { labels, type: TYPE.histogram, help: 'HTTP request duration in seconds', unit: 'seconds' },
      ],
    },
    { histograms: 1 },
    true,
  );
}
for (const [name, labels, type, success, unsafe] of [
  ['metadata_without_name_label', { job: 'test' }, TYPE.counter, false, false],
  ['metadata_with_empty_name', { __name__: '' }, TYPE.gauge, false, true],
  ['metadata_with_valid_name', basic('valid_metric_name'), TYPE.counter, true, false],
] as [string, Labels, number, boolean, boolean][]) {
  direct(
    `TestMetadataValidation/${name}`,
    () =>
      generateRequest({
        metadata: [{ labels, type, help: 'Test help', unit: 'unit' }],
        samples: [{ labels, value: 1 }],
        unsafe,
      }),
    { samples: 1 },
    success,
  );
}

// combined_test.go
{
  const labels = { __name__: 'http_requests_total', job: 'api', method: 'POST' };
  compliance(
    'TestSamplesWithMetadataAndExemplars',
    {
      samples: [{ labels, value: 1 }],
      metadata: [
        { labels, type: TYPE.counter, help: 'Total number of HTTP requests', unit: 'requests' },
      ],
      exemplars: [
        { labels, exemplarLabels: { trace_id: 'request_trace_123', user_id: 'user789' }, value: 1 },
      ],
    },
    { samples: 1, exemplars: 1 },
    true,
  );
}
{
  const labels = { __name__: 'request_duration_seconds', service: 'auth' };
  compliance(
    'TestHistogramsWithMetadataAndExemplars',
    {
      histograms: [{ labels, histogram: histogram(0.456, true, true, true, false, false) }],
      metadata: [
        {
          labels: basic('request_duration_seconds'),
          type: TYPE.histogram,
          help: 'HTTP request duration distribution',
          unit: 'seconds',
        },
      ],
      exemplars: [
        {
          labels,
          exemplarLabels: { trace_id: 'slow_request_trace', endpoint: '/login' },
          value: 0.456,
        },
      ],
    },
    { histograms: 1, exemplars: 1 },
    true,
  );
}
{
  const cpu = { __name__: 'cpu_usage', instance: 'server1' };
  compliance(
    'TestComplexSamplesRequest',
    {
      samples: [
        { labels: cpu, value: 0.85 },
        { labels: { __name__: 'memory_usage', instance: 'server1' }, value: 8589934592 },
      ],
      metadata: [
        { labels: basic('cpu_usage'), type: TYPE.gauge, help: 'CPU usage ratio', unit: 'ratio' },
        {
          labels: basic('memory_usage'),
          type: TYPE.gauge,
          help: 'Memory usage in bytes',
          unit: 'bytes',
        },
      ],
      exemplars: [
        {
          labels: cpu,
          exemplarLabels: { trace_id: 'high_cpu_trace', process: 'worker' },
          value: 0.85,
        },
      ],
    },
    { samples: 2, exemplars: 1 },
    true,
  );
}
{
  const response = { __name__: 'response_time_hist', endpoint: '/api/v1/users' };
  compliance(
    'TestComplexHistogramsRequest',
    {
      histograms: [
        { labels: response, histogram: histogram(0.125, true, false, true, false, false) },
        {
          labels: { __name__: 'request_size_hist', method: 'POST' },
          histogram: histogram(1024, false, true, true, false, false),
        },
      ],
      metadata: [
        {
          labels: basic('response_time_hist'),
          type: TYPE.histogram,
          help: 'Response time distribution',
          unit: 'seconds',
        },
        {
          labels: basic('request_size_hist'),
          type: TYPE.histogram,
          help: 'Request size distribution',
          unit: 'bytes',
        },
      ],
      exemplars: [
        {
          labels: response,
          exemplarLabels: { trace_id: 'fast_response', user: 'premium' },
          value: 0.125,
        },
      ],
    },
    { histograms: 2, exemplars: 1 },
    true,
  );
}
{
  const counter = { __name__: 'http_requests_total', status: '200' };
  compliance(
    'TestMultipleMetricFamiliesSamples',
    {
      samples: [
        { labels: counter, value: 1000 },
        { labels: { __name__: 'temperature_celsius', location: 'datacenter1' }, value: 23.5 },
      ],
      metadata: [
        {
          labels: basic('http_requests_total'),
          type: TYPE.counter,
          help: 'Total HTTP requests',
          unit: 'requests',
        },
        {
          labels: basic('temperature_celsius'),
          type: TYPE.gauge,
          help: 'Temperature in Celsius',
          unit: 'celsius',
        },
      ],
      exemplars: [
        { labels: counter, exemplarLabels: { trace_id: 'successful_request' }, value: 1000 },
      ],
    },
    { samples: 2, exemplars: 1 },
    true,
  );
}
{
  const labels = { __name__: 'request_duration_seconds', handler: '/metrics' };
  compliance(
    'TestMultipleMetricFamiliesHistograms',
    {
      histograms: [{ labels, histogram: histogram(0.003, true, false, true, false, false) }],
      metadata: [
        {
          labels: basic('request_duration_seconds'),
          type: TYPE.histogram,
          help: 'Request duration in seconds',
          unit: 'seconds',
        },
      ],
      exemplars: [
        {
          labels,
          exemplarLabels: { trace_id: 'metrics_scrape', scraper: 'prometheus' },
          value: 0.003,
        },
      ],
    },
    { histograms: 1, exemplars: 1 },
    true,
  );
}
direct(
  'TestEdgeCaseCombinations/metadata_without_data',
  () =>
    generateRequest({
      metadata: [
        {
          labels: basic('orphan_metric'),
          type: TYPE.counter,
          help: 'Orphaned metric metadata',
          unit: 'count',
        },
      ],
      unsafe: true,
    }),
  {},
  true,
);
direct(
  'TestEdgeCaseCombinations/exemplars_without_data',
  () =>
    generateRequest({
      exemplars: [
        { labels: basic('orphan_metric'), exemplarLabels: { trace_id: 'orphan_trace' }, value: 42 },
      ],
      unsafe: true,
    }),
  { exemplars: 1 },
  true,
);
direct(
  'TestEdgeCaseCombinations/mixed_timestamp_data',
  () =>
    generateRequest({
      samples: [
        { labels: basic('old_metric'), value: 1, offsetMs: -HOUR },
        { labels: basic('new_metric'), value: 2 },
      ],
      exemplars: [
        {
          labels: basic('old_metric'),
          exemplarLabels: { trace_id: 'old_trace' },
          value: 1,
          offsetMs: -30 * MINUTE,
        },
      ],
    }),
  { samples: 2, exemplars: 1 },
  true,
);
{
  const samples: Sample[] = [];
  const metadata: Meta[] = [];
  const exemplars: Ex[] = [];
  for (let i = 0; i < 50; i++) {
    const labels = { __name__: `counter_metric_${i}`, series: `series_${i}` };
    samples.push({ labels, value: i * 100 });
    metadata.push({
      labels: basic(`counter_metric_${i}`),
      type: TYPE.counter,
      help: `Counter metric number ${i}`,
      unit: 'count',
    });
    exemplars.push({ labels, exemplarLabels: { trace_id: `trace_${i}` }, value: i * 100 });
  }
  compliance(
    'TestManySamples',
    { samples, metadata, exemplars },
    { samples: 50, exemplars: 50 },
    true,
  );
}
{
  const histograms: Hist[] = [];
  const metadata: Meta[] = [];
  const exemplars: Ex[] = [];
  for (let i = 0; i < 50; i++) {
    const labels = { __name__: `histogram_metric_${i}`, bucket: `bucket_${i}` };
    histograms.push({
      labels,
      histogram: histogram(i / 10, true, i % 2 === 0, true, false, false),
    });
    metadata.push({
      labels: basic(`histogram_metric_${i}`),
      type: TYPE.histogram,
      help: `Histogram metric number ${i}`,
      unit: 'seconds',
    });
    exemplars.push({ labels, exemplarLabels: { trace_id: `trace_${i}` }, value: i / 10 });
  }
  compliance(
    'TestManyHistograms',
    { histograms, metadata, exemplars },
    { histograms: 50, exemplars: 50 },
    true,
  );
}
{
  const labels = {
    __name__: 'test_metric',
    job: 'test-job_with.special@chars',
    instance: 'localhost:9090',
    environment: 'test🚀',
  };
  compliance(
    'TestSpecialCharactersCombined',
    {
      samples: [{ labels, value: 42 }],
      metadata: [
        {
          labels: basic('test_metric'),
          type: TYPE.gauge,
          help: 'Test metric with special characters: äöü, newlines\nand "quotes"',
          unit: 'special/units',
        },
      ],
      exemplars: [
        {
          labels,
          exemplarLabels: {
            trace_id: 'special_trace_äöü-123',
            span_id: 'span_with.dots-and_underscores',
          },
          value: 42,
        },
      ],
    },
    { samples: 1, exemplars: 1 },
    true,
  );
}
{
  const labels = { __name__: 'custom_latency_hist', version: 'v2' };
  compliance(
    'TestCustomBucketsHistogramWithExemplar',
    {
      histograms: [{ labels, histogram: histogram(0.05, false, false, false, true, false) }],
      exemplars: [
        { labels, exemplarLabels: { trace_id: 'custom_bucket_trace', bucket: '0.1' }, value: 0.05 },
      ],
    },
    { histograms: 1, exemplars: 1 },
    true,
  );
}

/** helpers_test.go validateResponse: why the answer fails it, or null. */
function upstreamCheck(
  p: Params,
  success: boolean,
  strict: boolean,
  a: WriteAnswer,
): string | null {
  const samples = a.samples ?? 0;
  const exemplars = a.exemplars ?? 0;
  const histograms = a.histograms ?? 0;
  const want = {
    samples: p.samples ?? 0,
    exemplars: p.exemplars ?? 0,
    histograms: p.histograms ?? 0,
  };
  if (p.exactCode && a.status !== p.exactCode) return `status ${a.status}, not ${p.exactCode}`;
  const klass = Math.floor(a.status / 100);
  if (klass === 2) {
    if (!success) return `status ${a.status} but success is false`;
    if (
      samples !== want.samples ||
      exemplars !== want.exemplars ||
      histograms !== want.histograms
    ) {
      return `written ${samples}/${histograms}/${exemplars}, not ${want.samples}/${want.histograms}/${want.exemplars}`;
    }
    if (strict && a.status !== 204) return `status ${a.status}, not 204`;
    return null;
  }
  const over =
    samples > want.samples ||
    exemplars > want.exemplars ||
    histograms > want.histograms ||
    samples + exemplars + histograms > want.samples + want.exemplars + want.histograms;
  if (klass === 4) {
    if (p.retryable) return `status ${a.status} but retryable`;
    if (!p.exactCode && a.status !== 400) return `status ${a.status}, not 400`;
    return over ? 'more written than sent' : null;
  }
  if (klass === 5) {
    if (success) return `status ${a.status} but success`;
    if (!p.retryable) return `status ${a.status} but not retryable`;
    return over ? 'more written than sent' : null;
  }
  return `status ${a.status}`;
}

/** The stricter reading: 2xx exactly where success is expected. */
const strictCheck = (success: boolean, a: WriteAnswer): string | null =>
  success === (a.status >= 200 && a.status < 300)
    ? null
    : `status ${a.status} where ${success ? 'success' : 'failure'} is expected`;

/**
 * Cases this receiver answers 400 by design where upstream expects success (upstream's own
 * check accepts the 400): an exemplar is kept with its series' sample, and a series that
 * carries exemplars alone has none.
 */
const KNOWN_DIFFERENCES = new Set(['TestEdgeCaseCombinations/exemplars_without_data']);

// A database of its own: the cases write with the admin token, without run tag or env label,
// so what matches no run is held for any later run without an environment, and the counters
// among it (no created timestamp: a start at 0) are claimed by each such run as the
// references of its first increase: another file's runs on a shared database would list
// these series (counter_metric_<n>) as their own for the hold's 6 hours.
describe.each(scratchBackends('compliance'))(
  'prometheus/compliance remote-write receiver cases on $name',
  (backend) => {
    const server = useServer(backend);
    const results: { name: string; upstream: string | null; strict: string | null }[] = [];

    it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const built = c.build();
      const answer = await postWrite(
        server.url,
        server.token,
        built.body,
        built.contentType,
        built.headers,
      );
      const upstream = upstreamCheck(c.params, c.success, c.strict, answer);
      const strict = strictCheck(c.success, answer);
      results.push({ name: c.name, upstream, strict });
      expect(upstream, answer.text).toBeNull();
      if (KNOWN_DIFFERENCES.has(c.name)) expect(strict).not.toBeNull();
      else expect(strict, answer.text).toBeNull();
    });

    it('passes every case by upstream check, and all but the known differences strictly', () => {
      const upstreamPass = results.filter((r) => r.upstream === null).length;
      const strictPass = results.filter((r) => r.strict === null).length;
      console.info(
        `prometheus/compliance receiver cases on ${backend.name}: ${upstreamPass} of ${cases.length} pass upstream's check, ${strictPass} of ${cases.length} the strict one`,
      );
      expect(results).toHaveLength(cases.length);
      expect(upstreamPass).toBe(cases.length);
      expect(strictPass).toBe(cases.length - KNOWN_DIFFERENCES.size);
    });
  },
);
