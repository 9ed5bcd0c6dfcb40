// What mapping a remote-write request makes of it, as it is made: the metric records with
// what each holds of the request (the Written headers count samples, histogram samples and
// exemplars), the classic histogram points it holds only part of, what it acknowledges and
// does not store, and what it refuses, by reason.
import type { HistogramPart } from '../../domain/histogram-part.ts';
import type { MetricRecord, StoredExemplar } from '../../domain/metric-record.ts';
import { emptyRecord } from '../metric-records.ts';
import { inRange } from '../otlp/otlp-values.ts';
import type { Labelled } from './remote-write-labels.ts';

/** What a record (or a refusal) holds of the request: the three things the sender counts. */
export interface Held {
  samples: number;
  histograms: number;
  exemplars: number;
}

/** A classic histogram point's parts that one request holds (not all of them). */
export interface RequestHistogramPart extends HistogramPart {
  exemplars: StoredExemplar[];
  /** What the parts hold of the request. */
  held: Held;
}

export interface MappedWrite {
  records: MetricRecord[];
  /** Classic histogram points the request holds part of. */
  parts: RequestHistogramPart[];
  /** Per record, what it holds of the request. */
  held: Held[];
  /** Everything the request carries. */
  total: Held;
  /** Samples acknowledged and not stored: stale markers, NaN, infinities. */
  notStored: number;
  /** Refused, by reason: what each refused. */
  refused: Map<string, Held>;
}

const none = (): Held => ({ samples: 0, histograms: 0, exemplars: 0 });

export function addHeld(into: Held, from: Held): void {
  into.samples += from.samples;
  into.histograms += from.histograms;
  into.exemplars += from.exemplars;
}

/** The reasons as one message: "3 sample(s): reason; 1 histogram sample(s): other". */
export function refusalText(refused: Map<string, Held>): string {
  const parts: string[] = [];
  for (const [why, h] of refused) {
    const what = [
      h.samples > 0 ? `${h.samples} sample(s)` : '',
      h.histograms > 0 ? `${h.histograms} histogram sample(s)` : '',
      h.exemplars > 0 ? `${h.exemplars} exemplar(s)` : '',
    ]
      .filter(Boolean)
      .join(', ');
    parts.push(`${what || 'nothing'}: ${why}`);
  }
  return parts.join('; ');
}

/** A record of the series `l` at `tMs`, every value field empty. */
export function recordOf(l: Labelled, unit: string | null, tMs: number): MetricRecord {
  return emptyRecord('prometheus', l.name, unit, l.tags, l.runRef, l.env, tMs);
}

/** Why a sample at `tMs` that started at `startMs` (0: unknown) is refused, or null. */
export function timeRefusal(name: string, tMs: number, startMs: number): string | null {
  if (!inRange(tMs) || (startMs !== 0 && !inRange(startMs))) {
    return `a sample of "${name}" has a time outside 1970-9999`;
  }
  if (startMs > tMs) return `a sample of "${name}" starts after its time`;
  return null;
}

/** A MappedWrite being made. */
export class WriteOutcome {
  readonly mapped: MappedWrite = {
    records: [],
    parts: [],
    held: [],
    total: none(),
    notStored: 0,
    refused: new Map(),
  };

  refuse(why: string, h: Held): void {
    const r = this.mapped.refused.get(why);
    if (r) addHeld(r, h);
    else this.mapped.refused.set(why, { ...h });
  }

  push(r: MetricRecord, h: Held): void {
    this.mapped.records.push(r);
    this.mapped.held.push(h);
  }

  /**
   * A series' exemplars with the last record it made since `before` (a count of records),
   * or as its samples went: not stored when they were (`notStoredBefore`).
   */
  attach(exemplars: StoredExemplar[], before: number, notStoredBefore: number): void {
    if (exemplars.length === 0) return;
    const out = this.mapped;
    const last = out.records.length > before ? out.records.length - 1 : -1;
    const held = out.held[last];
    if (last >= 0 && held) {
      const r = out.records[last] as MetricRecord;
      r.exemplars = [...(r.exemplars ?? []), ...exemplars];
      held.exemplars += exemplars.length;
    } else if (out.notStored > notStoredBefore) out.notStored += exemplars.length;
  }
}
