// The demo's Prometheus: control-plane metrics as a Prometheus that scraped them forwards
// them with remote_write (2.0: each series with its type, unit and start), one request per
// scrape, to POST /api/v1/write like any sender. Counters and gauges are one series each;
// a histogram is its classic family (`_bucket{le}` cumulative, `_sum`, `_count`).
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { DataPointType } from '@opentelemetry/sdk-metrics';
import {
  encodeRequestV2,
  REMOTE_WRITE_V2_TYPE,
  type SeriesToSend,
  snappyBlock,
} from '../ingest/prometheus/remote-write-encode.ts';

/** Metadata.MetricType of 2.0. */
const COUNTER = 1;
const GAUGE = 2;
const HISTOGRAM = 3;
/** OpenTelemetry unit -> the Prometheus unit word, for the units the demo uses. */
const UNITS: Record<string, string> = { s: 'seconds', By: 'bytes' };

const ms = (t: [number, number]) => t[0] * 1000 + Math.round(t[1] / 1e6);
const le = (b: number) => (b === Number.POSITIVE_INFINITY ? '+Inf' : String(b));

/**
 * The series a Prometheus scraping these metrics would remote-write, by scrape time: one
 * list of series (one sample each) per time, with `meshbench_run` set to `runRef`.
 */
export function remoteWriteScrapes(
  data: ResourceMetrics,
  runRef: string,
  runStartMs: number,
): SeriesToSend[][] {
  const byTime = new Map<number, SeriesToSend[]>();
  // The scrape job's name, as Prometheus labels what it scraped.
  const job = String(data.resource.attributes['service.name'] ?? 'demo');
  const add = (
    t: number,
    name: string,
    attrs: Record<string, unknown>,
    value: number,
    meta: { type: number; unit?: string | undefined; startMs?: number },
    extra: [string, string][] = [],
  ) => {
    const labels: [string, string][] = [
      ['__name__', name],
      ['job', job],
      ['meshbench_run', runRef],
      ...Object.entries(attrs).map(([k, v]) => [k, String(v)] as [string, string]),
      ...extra,
    ];
    labels.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    let list = byTime.get(t);
    if (!list) {
      list = [];
      byTime.set(t, list);
    }
    list.push({
      labels,
      samples: [{ value, timestampMs: t, ...(meta.startMs ? { startMs: meta.startMs } : {}) }],
      type: meta.type,
      ...(meta.unit ? { unit: meta.unit } : {}),
    });
  };
  for (const scope of data.scopeMetrics) {
    for (const metric of scope.metrics) {
      const { name, unit } = metric.descriptor;
      const promUnit = UNITS[unit] ?? (unit || undefined);
      for (const p of metric.dataPoints) {
        const t = ms(p.endTime);
        const startMs = ms(p.startTime);
        if (metric.dataPointType === DataPointType.GAUGE) {
          // Before the run a gauge belongs to no run (refused); a cumulative series' last
          // point before it is what its first increase is counted from.
          if (t < runStartMs) continue;
          add(t, name, p.attributes, p.value as number, { type: GAUGE, unit: promUnit });
        } else if (metric.dataPointType === DataPointType.SUM) {
          add(t, name, p.attributes, p.value as number, { type: COUNTER, unit: promUnit, startMs });
        } else if (metric.dataPointType === DataPointType.HISTOGRAM) {
          const h = p.value as {
            buckets: { boundaries: number[]; counts: number[] };
            count: number;
            sum?: number;
          };
          const meta = { type: HISTOGRAM, unit: promUnit, startMs };
          let cumulative = 0;
          const bounds = [...h.buckets.boundaries, Number.POSITIVE_INFINITY];
          bounds.forEach((b, i) => {
            cumulative += h.buckets.counts[i] ?? 0;
            add(t, `${name}_bucket`, p.attributes, cumulative, meta, [['le', le(b)]]);
          });
          add(t, `${name}_sum`, p.attributes, h.sum ?? 0, meta);
          add(t, `${name}_count`, p.attributes, h.count, meta);
        }
      }
    }
  }
  return [...byTime.entries()].sort(([a], [b]) => a - b).map(([, series]) => series);
}

/** POSTs each scrape as one Remote-Write 2.0 request; any answer but 204 is an error. */
export async function sendRemoteWrite(
  baseUrl: string,
  scrapes: SeriesToSend[][],
  token?: string,
): Promise<void> {
  for (const series of scrapes) {
    const response = await fetch(`${baseUrl}/api/v1/write`, {
      method: 'POST',
      headers: {
        'content-type': REMOTE_WRITE_V2_TYPE,
        'content-encoding': 'snappy',
        'x-prometheus-remote-write-version': '2.0.0',
        'user-agent': 'meshbench-demo',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: snappyBlock(encodeRequestV2(series)),
    });
    const text = await response.text();
    if (response.status !== 204) {
      throw new Error(`remote write answered ${response.status}: ${text}`);
    }
  }
}
