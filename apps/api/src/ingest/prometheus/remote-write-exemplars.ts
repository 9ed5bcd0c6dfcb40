// A remote-write series' exemplars: each must have a time (the 2.0 specification) and a
// sample of its series to go with; those kept are read as stored, the others refused.
import type { StoredExemplar } from '../../domain/metric-record.ts';
import { inRange } from '../otlp/otlp-values.ts';
import type { Labelled } from './remote-write-labels.ts';
import type { WriteOutcome } from './remote-write-outcome.ts';
import type { WireExemplar, WireSeries } from './remote-write-reader.ts';

/** The exemplars of a series that sent none (most): read-only. */
const NO_EXEMPLARS: StoredExemplar[] = Object.freeze([]) as unknown as StoredExemplar[];

const exemplarValue = (v: number): StoredExemplar['value'] =>
  Number.isFinite(v) ? v : Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf';

function storedExemplar(e: WireExemplar): StoredExemplar {
  const labels: Record<string, string> = {};
  for (let i = 0; i < e.labels.length; i += 2) {
    labels[e.labels[i] as string] = e.labels[i + 1] as string;
  }
  return { tMs: e.timestamp, value: exemplarValue(e.value), labels };
}

/**
 * The series' exemplars that have a time (the 2.0 specification) and a sample to go with;
 * the others refused.
 */
export function seriesExemplars(
  outcome: WriteOutcome,
  s: WireSeries,
  l: Labelled,
): StoredExemplar[] {
  if (s.exemplars.length === 0) return NO_EXEMPLARS;
  const exemplars: StoredExemplar[] = [];
  for (const e of s.exemplars) {
    if (e.timestamp === 0 || !inRange(e.timestamp)) {
      outcome.refuse(`an exemplar of "${l.name}" has no time in 1970-9999`, {
        samples: 0,
        histograms: 0,
        exemplars: 1,
      });
    } else exemplars.push(storedExemplar(e));
  }
  if (exemplars.length > 0 && s.values.length === 0 && s.histograms.length === 0) {
    outcome.refuse(`exemplars of "${l.name}" came without a sample of their series`, {
      samples: 0,
      histograms: 0,
      exemplars: exemplars.length,
    });
    exemplars.length = 0;
  }
  return exemplars;
}
