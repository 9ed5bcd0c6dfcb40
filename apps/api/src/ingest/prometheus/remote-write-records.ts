// A remote-write series' own samples as records (remote-write-map.ts decides which are):
// a plain sample, as a counter (cumulative, with its start) or a gauge; a native histogram,
// as an explicit or exponential histogram, or a gauge histogram.
import { encodeDistribution } from '../../domain/distribution.ts';
import { nativeDistribution } from './native-histogram.ts';
import type { Labelled } from './remote-write-labels.ts';
import { recordOf, timeRefusal, type WriteOutcome } from './remote-write-outcome.ts';
import {
  METRIC_TYPE,
  RESET_HINT_GAUGE,
  type WireHistogram,
  type WireSeries,
} from './remote-write-reader.ts';

const finite = (v: number) => Number.isFinite(v);

/** The series' sample `i` as a record. */
export function plainRecord(
  outcome: WriteOutcome,
  s: WireSeries,
  i: number,
  l: Labelled,
  kind: 'counter' | 'gauge',
  unit: string | null,
): void {
  const v = s.values[i] as number;
  const tMs = s.times[i] as number;
  const start = (s.starts[i] as number) || s.createdMs;
  const one = { samples: 1, histograms: 0, exemplars: 0 };
  const late = timeRefusal(l.name, tMs, start);
  if (late) {
    outcome.refuse(late, one);
    return;
  }
  if (!finite(v)) {
    outcome.mapped.notStored++;
    return;
  }
  const r = recordOf(l, unit, tMs);
  r.kind = kind;
  r.last = v;
  r.lastAtMs = tMs;
  if (kind === 'counter') r.startAtMs = start;
  else {
    r.min = v;
    r.max = v;
  }
  outcome.push(r, one);
}

/** A native histogram sample as a record. */
export function nativeRecord(
  outcome: WriteOutcome,
  s: WireSeries,
  h: WireHistogram,
  l: Labelled,
  type: number,
  unit: string | null,
): void {
  const one = { samples: 0, histograms: 1, exemplars: 0 };
  // A gauge histogram (the series' type, or the sample's reset hint GAUGE: prompb
  // types.proto / io/prometheus/write/v2 types.proto Histogram.ResetHint, and
  // model/histogram CounterResetHint GaugeType, at d15adb9ad7e5d9fbde3a9a8f30200593a5a14d86)
  // is a distribution at its time: no start, no increase (series-math.ts lastSnapshot).
  const gauge = type === METRIC_TYPE.gaugeHistogram || h.resetHint === RESET_HINT_GAUGE;
  const start = gauge ? 0 : h.startTimestamp || s.createdMs;
  const late = timeRefusal(l.name, h.timestamp, start);
  if (late) {
    outcome.refuse(late, one);
    return;
  }
  if (h.inexact) {
    outcome.refuse(`a histogram of "${l.name}" has a count beyond 2^53`, one);
    return;
  }
  // A stale marker: the histogram's sum is the stale NaN and it has nothing to store.
  if (Number.isNaN(h.sum) && h.count === 0) {
    outcome.mapped.notStored++;
    return;
  }
  let layout: ReturnType<typeof nativeDistribution>;
  try {
    layout = nativeDistribution(h);
  } catch (error) {
    outcome.refuse(`a histogram of "${l.name}" is invalid: ${(error as Error).message}`, one);
    return;
  }
  const r = recordOf(l, unit, h.timestamp);
  r.kind = gauge
    ? 'gauge_histogram'
    : layout.form === 'explicit'
      ? 'histogram'
      : 'exponential_histogram';
  r.count = h.count;
  r.sum = finite(h.sum) ? h.sum : null;
  r.sketch = encodeDistribution(layout);
  r.startAtMs = gauge ? null : start;
  outcome.push(r, one);
}
