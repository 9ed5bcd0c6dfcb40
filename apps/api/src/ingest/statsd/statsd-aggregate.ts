// StatsD aggregation per flush interval, as StatsD servers do it: counters summed with the
// sample-rate correction, gauges last value (deltas applied), sets as distinct members,
// timers/histograms/distributions as count, sum, min, max and their values: the samples
// themselves while an interval holds at most RAW_SAMPLE_LIMIT unsampled ones (percentiles
// exact), past that a mergeable DDSketch.
// The state lives for one interval only; a flush hands out one row per series and interval.
// A value that would take a sum (or a gauge, by a delta) past float64 is malformed, not Infinity.
import type { SeriesKind } from '@meshbench/schema';
import { encodeDistribution, RAW_SAMPLE_LIMIT } from '../../domain/distribution.ts';
import type { AggregateValues } from '../../domain/series-math.ts';
import { newSketch, type Sketch } from '../../domain/sketch.ts';
import type { Shape, StatsdSink, StatsdType } from './statsd-lines.ts';

export const KIND_OF: Record<StatsdType, SeriesKind> = {
  c: 'counter',
  g: 'gauge',
  s: 'set',
  ms: 'timer',
  h: 'histogram',
  d: 'distribution',
};

/** Members kept per set per interval; past it the distinct count goes on, members do not. */
export const SET_MEMBER_LIMIT = 10_000;

interface Aggregate {
  shape: Shape;
  tMs: number;
  /** Values and members received, whatever their sample rate. */
  samples: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  last: number;
  lastAtMs: number;
  /** A gauge's last value as exact decimal text, when it is a whole number beyond 2^53. */
  lastExact: string | null;
  /** The interval's samples, while there are few enough and none is sampled. */
  raw: number[] | null;
  sketch: Sketch | null;
  members: Set<string> | null;
  /** Gauges: the series' remembered value, found once per interval rather than per line. */
  memory: GaugeMemory | null;
}

interface GaugeMemory {
  value: number;
  /** The value exactly, while it is a whole number beyond 2^53 (deltas added as integers). */
  exact: bigint | null;
}

export interface AggregateRow extends AggregateValues {
  /** Start of the interval (epoch ms) and its length. */
  tMs: number;
  intervalMs: number;
  name: string;
  kind: SeriesKind;
  /** Raw DogStatsD tags. */
  tags: string;
  containerId: string;
  /** A gauge's last value as exact decimal text, beyond float8's 2^53 (else null). */
  lastExact: string | null;
  /** Values and members received for it (what is counted when it is dropped). */
  samples: number;
}

export interface AggregatorCounters {
  samples: number;
  malformed: number;
  lastMalformed: string | null;
  events: number;
  serviceChecks: number;
  /** Samples dropped because an interval already held maxSeries aggregates. */
  dropped: number;
}

export interface AggregatorOptions {
  flushMs: number;
  /** Aggregates per interval before new ones are dropped (memory bound). */
  maxSeries?: number;
  /** Gauges whose last value is remembered for deltas (all forgotten past it). */
  maxGauges?: number;
}

export interface ClosedInterval {
  readonly aggregates: readonly unknown[];
  readonly startMs: number;
  readonly nowMs: number;
}

/** Start of the interval a sample belongs to: its |T bucket, or 0 for "the current one". */
const CURRENT = 0;

export class StatsdAggregator implements StatsdSink {
  readonly counters: AggregatorCounters = {
    samples: 0,
    malformed: 0,
    lastMalformed: null,
    events: 0,
    serviceChecks: 0,
    dropped: 0,
  };
  /** The aggregates of this interval, in the order they appeared. */
  private active: Aggregate[] = [];
  private epoch = 0;
  /**
   * The last value of each gauge seen by this process, so a later "+5" has something to
   * add to. With several replicas each keeps its own: a delta sent to a replica that never
   * saw the gauge's absolute value starts from 0 (as a restarted StatsD server does), so
   * senders that use deltas should stick to one replica (or send absolute values).
   */
  private gaugeLast = new Map<string, GaugeMemory>();
  private readonly flushMs: number;
  private readonly maxSeries: number;
  private readonly maxGauges: number;

  constructor(options: AggregatorOptions) {
    this.flushMs = options.flushMs;
    this.maxSeries = options.maxSeries ?? 500_000;
    this.maxGauges = options.maxGauges ?? 200_000;
  }

  /** The shape's aggregate for this interval (created on its first sample), or null. */
  private aggregate(shape: Shape): Aggregate | null {
    if (shape.epoch === this.epoch) return shape.state as Aggregate;
    if (this.active.length >= this.maxSeries) {
      this.counters.dropped++;
      return null;
    }
    const t = shape.timestampMs;
    const a: Aggregate = {
      shape,
      tMs: t > 0 ? t - (t % this.flushMs) : CURRENT,
      samples: 0,
      count: 0,
      sum: 0,
      min: Number.POSITIVE_INFINITY,
      max: Number.NEGATIVE_INFINITY,
      last: 0,
      lastAtMs: t,
      lastExact: null,
      raw: null,
      sketch: null,
      members: null,
      memory: shape.type === 'g' ? this.gaugeMemory(shape.seriesKey) : null,
    };
    shape.state = a;
    shape.epoch = this.epoch;
    this.active.push(a);
    return a;
  }

  /**
   * The remembered value of a gauge series, shared by every shape of the series (rates,
   * |T). Past maxGauges all are forgotten; aggregates of this interval keep theirs.
   */
  private gaugeMemory(seriesKey: string): GaugeMemory {
    let memory = this.gaugeLast.get(seriesKey);
    if (!memory) {
      if (this.gaugeLast.size >= this.maxGauges) this.gaugeLast.clear();
      memory = { value: 0, exact: null };
      this.gaugeLast.set(seriesKey, memory);
    }
    return memory;
  }

  sample(shape: Shape, value: number, delta: boolean, integer?: string): void {
    const a = this.aggregate(shape);
    if (!a) return;
    this.counters.samples++;
    a.samples++;
    const rate = shape.rate;
    switch (shape.type) {
      case 'c': {
        const sum = a.sum + (rate === 1 ? value : value / rate);
        if (!Number.isFinite(sum)) {
          this.beyondFloat64(a, shape, value);
          return;
        }
        a.count++;
        a.sum = sum;
        break;
      }
      case 'g': {
        // A Map look-up per line here was most of a gauge line's cost.
        const memory = a.memory as GaugeMemory;
        const v = delta ? memory.value + value : value;
        if (!Number.isFinite(v)) {
          this.beyondFloat64(a, shape, value);
          return;
        }
        memory.exact = exactGauge(memory, delta, integer, value);
        memory.value = v;
        a.count++;
        a.last = v;
        a.lastExact = memory.exact === null ? null : String(memory.exact);
        if (v < a.min) a.min = v;
        if (v > a.max) a.max = v;
        break;
      }
      default: {
        const weight = rate === 1 ? 1 : 1 / rate;
        const sum = a.sum + value * weight;
        if (!Number.isFinite(sum)) {
          this.beyondFloat64(a, shape, value);
          return;
        }
        a.count += weight;
        a.sum = sum;
        a.last = value;
        if (value < a.min) a.min = value;
        if (value > a.max) a.max = value;
        if (a.sketch) a.sketch.accept(value, weight);
        else if (weight === 1 && (a.raw === null || a.raw.length < RAW_SAMPLE_LIMIT)) {
          if (a.raw === null) a.raw = [value];
          else a.raw.push(value);
        } else {
          // Too many, or a sampled one (a weight a raw value cannot carry): a sketch from now.
          const sketch = newSketch();
          if (a.raw) for (const v of a.raw) sketch.accept(v, 1);
          sketch.accept(value, weight);
          a.sketch = sketch;
          a.raw = null;
        }
      }
    }
  }

  /**
   * A value that would take its series' sum (or a gauge, by a delta) past float64: the line
   * is malformed, not stored as Infinity (which reads back as null).
   */
  private beyondFloat64(a: Aggregate, shape: Shape, value: number): void {
    this.counters.samples--;
    a.samples--;
    // Refused as the interval's first sample: no aggregate, so no row of a value nobody sent
    // (a gauge of 0 after a refused delta, a counter of 0 after a refused sampled value).
    // Only an aggregate made by this very sample can be empty (one that took a sample keeps
    // it), so it is the last one made.
    if (a.samples === 0) {
      this.active.pop();
      shape.epoch = -1;
    }
    this.malformed(`${shape.name}:${value}|${shape.type}`, "the series' sum would leave float64");
  }

  member(shape: Shape, member: string): void {
    const a = this.aggregate(shape);
    if (!a) return;
    this.counters.samples++;
    a.samples++;
    a.count++;
    if (!a.members) a.members = new Set();
    // Past the limit the interval's distinct count is a lower bound.
    if (a.members.size < SET_MEMBER_LIMIT) a.members.add(member);
  }

  event(): void {
    // Events are recognised and skipped on purpose: meshbench keeps metrics, not events.
    this.counters.events++;
  }

  serviceCheck(): void {
    this.counters.serviceChecks++;
  }

  malformed(line: string, reason: string): void {
    this.counters.malformed++;
    this.counters.lastMalformed = `${reason}: ${line.length > 200 ? `${line.slice(0, 200)}...` : line}`;
  }

  /** Closes the interval [startMs, nowMs): its aggregates leave, the state is cleared. */
  close(startMs: number, nowMs: number): ClosedInterval {
    const closed = { aggregates: this.active, startMs, nowMs };
    this.active = [];
    this.epoch++;
    return closed;
  }

  /**
   * Rows of a closed interval, from one index to another: the caller may take them in
   * slices and let the socket be read in between (sketches are encoded here).
   */
  rows(closed: ClosedInterval, from: number, to: number): AggregateRow[] {
    const { startMs, nowMs } = closed;
    return (closed.aggregates.slice(from, to) as Aggregate[]).map((a) =>
      a.tMs === CURRENT
        ? toRow(a, startMs, Math.max(0, nowMs - startMs), nowMs)
        : toRow(a, a.tMs, this.flushMs, a.lastAtMs),
    );
  }

  /** Closes the interval [startMs, nowMs) and returns all its rows. */
  flush(startMs: number, nowMs: number): AggregateRow[] {
    const closed = this.close(startMs, nowMs);
    return this.rows(closed, 0, closed.aggregates.length);
  }

  get pendingSeries(): number {
    return this.active.length;
  }
}

function toRow(a: Aggregate, tMs: number, intervalMs: number, defaultLastAt: number): AggregateRow {
  const kind = KIND_OF[a.shape.type];
  const row: AggregateRow = {
    tMs,
    intervalMs,
    name: a.shape.name,
    kind,
    tags: a.shape.tags,
    containerId: a.shape.containerId,
    samples: a.samples,
    count: a.count,
    sum: null,
    min: null,
    max: null,
    last: null,
    lastAtMs: null,
    sketch: null,
    members: null,
    lastExact: null,
  };
  if (kind === 'counter') {
    row.sum = a.sum;
  } else if (kind === 'gauge') {
    row.last = a.last;
    row.lastExact = a.lastExact;
    row.min = a.min;
    row.max = a.max;
    row.lastAtMs = a.lastAtMs > 0 ? a.lastAtMs : defaultLastAt;
  } else if (kind === 'set') {
    const members = a.members ? [...a.members] : [];
    row.members = members;
    row.last = members.length;
  } else {
    row.sum = a.sum;
    row.min = a.min;
    row.max = a.max;
    row.last = a.last;
    row.sketch = a.sketch
      ? encodeDistribution({ form: 'ddsketch', sketch: a.sketch })
      : a.raw
        ? encodeDistribution({ form: 'raw', values: a.raw })
        : null;
  }
  return row;
}

/** 2^53: past it a float64 no longer holds every whole number. */
const SAFE = 2n ** 53n;

/**
 * A gauge's exact value after a sample, while it is a whole number beyond 2^53: an absolute
 * value as written, or the exact value before plus a whole delta; null once it is within
 * 2^53 (the float holds it) or is not a whole number.
 */
function exactGauge(
  before: GaugeMemory,
  delta: boolean,
  integer: string | undefined,
  value: number,
): bigint | null {
  const whole = (text: string | undefined, v: number) =>
    text !== undefined ? BigInt(text) : Number.isSafeInteger(v) ? BigInt(v) : null;
  let exact: bigint | null;
  if (!delta) exact = integer === undefined ? null : BigInt(integer);
  else {
    const from = before.exact ?? whole(undefined, before.value);
    const by = whole(integer, value);
    exact = from === null || by === null ? null : from + by;
  }
  if (exact === null) return null;
  return exact > SAFE || exact < -SAFE ? exact : null;
}
