// The Remote-Write 1.0 requests bench/prometheus-write sends and bench/prometheus-decode
// reads: what an istiod scrape forwarded by Prometheus looks like, 2,000 samples a request.
import { encodeWriteRequest, type SeriesToSend, snappyBlock } from '@meshbench/api/remote-write';

export const BUCKETS = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '+Inf'];
/** Per request: 100 counters, 100 gauges and 150 histogram families of 12 series: 2,000. */
export const COUNTERS = 100;
export const GAUGES = 100;
export const FAMILIES = 150;
export const PER_REQUEST = COUNTERS + GAUGES + FAMILIES * (BUCKETS.length + 2);
export const ROWS_PER_REQUEST = COUNTERS + GAUGES + FAMILIES;

/** Request k: every series once, at its own scrape time, values growing with k. */
export function body(runId: string, k: number, t0: number): Buffer {
  const at = t0 + k * 1000;
  const base = (name: string, i: number): [string, string][] => [
    ['__name__', name],
    ['instance', `10.0.${i % 250}.${i % 7}:15014`],
    ['job', 'istiod'],
    ['meshbench_run', runId],
    ['pod', `istiod-${i % 3}`],
  ];
  const series: SeriesToSend[] = [];
  for (let i = 0; i < COUNTERS; i++) {
    series.push({
      labels: base(`pilot_xds_pushes_${i}_total`, i),
      samples: [{ value: k * 10 + i, timestampMs: at }],
    });
  }
  for (let i = 0; i < GAUGES; i++) {
    series.push({
      labels: base(`pilot_proxies_${i}`, i),
      samples: [{ value: (k * 7 + i) % 500, timestampMs: at }],
    });
  }
  for (let f = 0; f < FAMILIES; f++) {
    const name = `pilot_proxy_convergence_time_${f}`;
    BUCKETS.forEach((le, b) => {
      series.push({
        labels: [...base(`${name}_bucket`, f), ['le', le]].sort(([a], [c]) =>
          (a as string) < (c as string) ? -1 : 1,
        ) as [string, string][],
        samples: [{ value: k * (b + 1), timestampMs: at }],
      });
    });
    series.push({
      labels: base(`${name}_sum`, f),
      samples: [{ value: k * 3.5, timestampMs: at }],
    });
    series.push({
      labels: base(`${name}_count`, f),
      samples: [{ value: k * BUCKETS.length, timestampMs: at }],
    });
  }
  return snappyBlock(encodeWriteRequest(series));
}
