// Reads a batch's body into decoded events: observations handed to a sink as they come
// (the repository writes them as COPY rows), the other kinds kept, and the facts the batch
// must check at its end: changes it defines, changes it references, each change's first
// applications per stage.

import { isUtf8 } from 'node:buffer';
import {
  APPLIED_STAGE,
  type ChangeEvent,
  type ClockEvent,
  type ProbeEvent,
  TIMESTAMP_RANGE,
} from '@meshbench/schema';
import {
  agreeingOffset,
  exchangeProblem,
  offsetFromExchange,
} from '../../domain/clock-correction.ts';
import type {
  DecodedClock,
  DecodedIncident,
  DecodedLifecycle,
  ObservationSink,
} from '../../domain/event-records.ts';
import { FirstApplications } from '../../domain/first-applications.ts';
import { sliceMs, yieldToLoop } from '../../domain/slices.ts';
import { AppError } from '../../errors.ts';
import { invalidUtf8At } from '../stored-text.ts';
import { formatTimestampUs, parseTimestampUs, parseUtcBytes } from '../timestamps.ts';
import { readClockBytes } from './clock-bytes.ts';
import {
  type BatchFormat,
  bodyTooLarge,
  jsonArrayLines,
  type NumberedEvent,
  parseLine,
} from './event-stream.ts';
import {
  AT,
  CAUSE,
  CHANGE,
  FIELD_SLOTS,
  NODE,
  PROXY,
  readObservationBytes,
  STAGE,
} from './observation-bytes.ts';

export interface BatchPhase {
  entities: FirstApplications;
  attrsTotal: number | null;
}

export interface BatchChange {
  event: ChangeEvent;
  atUs: number;
  line: number;
}

/** Postgres reads these as they are; anything else is rewritten to canonical UTC. */
const PLAIN_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?(Z|[+-]\d\d:\d\d)$/;
/**
 * The longest NDJSON line taken, in bytes: an event is a few hundred. A longer line is
 * refused as soon as it is seen to be, so that a body of one endless line costs no more
 * than reading this much of it.
 */
export const MAX_LINE_BYTES = 1024 * 1024;

/** What errors call a line: an NDJSON line, or an event of a JSON array (one a line). */
type Unit = 'line' | 'event';

const lineTooLarge = (line: number, unit: Unit) =>
  new AppError(
    413,
    'line_too_large',
    `${unit} ${line} is longer than ${MAX_LINE_BYTES} bytes${unit === 'line' ? '; one event per line' : ''}`,
    { line },
  );

const badTimestamp = (line: number, field: string) =>
  new AppError(
    400,
    'invalid_event',
    `line ${line}: "${field}" is not a valid RFC 3339 timestamp in ${TIMESTAMP_RANGE}`,
    { line, field },
  );

function sameBytes(b: Uint8Array, from: number, to: number, other: Uint8Array): boolean {
  if (to - from !== other.length) return false;
  for (let i = 0; i < other.length; i++) if (b[from + i] !== other[i]) return false;
  return true;
}

/** What the reader keeps of a change and stage while observations of it come. */
interface ObservationContext {
  change: string;
  changeBytes: Uint8Array;
  stage: string | undefined;
  stageBytes: Uint8Array | null;
  apps: FirstApplications;
}

export class BatchAssembler {
  readonly changes = new Map<string, BatchChange>();
  /** change id -> first line that referenced it */
  readonly references = new Map<string, number>();
  /** change id -> stage (`applied` when none is given) -> first applications at it */
  readonly applications = new Map<string, Map<string, FirstApplications>>();
  readonly incidents: DecodedIncident[] = [];
  readonly lifecycle: DecodedLifecycle[] = [];
  readonly clocks: DecodedClock[] = [];
  /** Per lifecycle phase: each entity's first arrival in this batch, the largest attrs.total. */
  readonly phases = new Map<string, BatchPhase>();
  accepted = 0;
  /** The number of the last NDJSON line read, blank ones included. */
  lastLine: number;

  private readonly fields = new Int32Array(FIELD_SLOTS);
  /** The change and stage of the observations being read, as strings and as UTF-8. */
  private change: string | undefined;
  private changeBytes: Uint8Array = new Uint8Array(0);
  /** The changes and stages observations were of lately, to switch between them cheaply. */
  private readonly contexts: ObservationContext[] = [];
  /** undefined / null: no stage given. */
  private stage: string | undefined;
  private stageBytes: Uint8Array | null = null;
  private apps = new FirstApplications();

  constructor(
    private readonly observations: ObservationSink,
    /** The number of the body's first line: lines of a larger input keep their numbers. */
    firstLine = 1,
  ) {
    this.lastLine = firstLine - 1;
  }

  private timestamp(value: string, line: number, field: string): { us: number; text: string } {
    const us = parseTimestampUs(value);
    if (us === null) throw badTimestamp(line, field);
    return { us, text: PLAIN_TIMESTAMP.test(value) ? value : formatTimestampUs(us) };
  }

  /**
   * Reads the whole body, handing observations to the sink as they come and yielding after
   * each part of the body (the sink's rows can go out then); every other kind is kept for
   * after the stream (they are few beside observations).
   */
  read(body: AsyncIterable<Buffer>, format: BatchFormat, limit: number): AsyncGenerator<void> {
    return format === 'ndjson'
      ? this.readNdjson(body, limit)
      : this.readNdjson(jsonArrayLines(body, limit), limit, 'event');
  }

  /** Events already decoded (a JSON array's, or any source of numbered events). */
  async *readEvents(batches: AsyncIterable<NumberedEvent[]>): AsyncGenerator<void> {
    for await (const events of batches) {
      for (const { line, event } of events) this.add(event, line);
      yield;
    }
  }

  /**
   * NDJSON read as bytes: the common observation line goes from the body's bytes to the
   * sink without a string or an object per line; any other line is decoded and parsed.
   * The event loop runs between chunks every sliceMs() (domain/slices.ts): a body already
   * received is otherwise read to its end in one turn.
   */
  async *readNdjson(
    body: AsyncIterable<Buffer>,
    limit: number,
    unit: Unit = 'line',
  ): AsyncGenerator<void> {
    // A line split over chunks is kept as its parts until its end is seen: one copy of
    // each byte, however many chunks the line spans.
    let carry: Buffer[] = [];
    let carried = 0;
    let no = this.lastLine;
    let total = 0;
    let sliceStarted = performance.now();
    for await (const chunk of body) {
      total += chunk.length;
      if (total > limit) throw bodyTooLarge(limit);
      let from = 0;
      if (carried > 0) {
        const nl = chunk.indexOf(10);
        if (nl === -1) {
          if (carried + chunk.length > MAX_LINE_BYTES) throw lineTooLarge(no + 1, unit);
          // Copied: the caller may reuse the chunk's memory.
          carry.push(Buffer.from(chunk));
          carried += chunk.length;
          continue;
        }
        if (carried + nl > MAX_LINE_BYTES) throw lineTooLarge(no + 1, unit);
        carry.push(chunk.subarray(0, nl));
        const line = Buffer.concat(carry, carried + nl);
        carry = [];
        carried = 0;
        this.line(line, 0, line.length, ++no, unit);
        this.lastLine = no;
        from = nl + 1;
      }
      for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
        if (nl - from > MAX_LINE_BYTES) throw lineTooLarge(no + 1, unit);
        this.line(chunk, from, nl, ++no, unit);
        from = nl + 1;
      }
      this.lastLine = no;
      if (from < chunk.length) {
        if (chunk.length - from > MAX_LINE_BYTES) throw lineTooLarge(no + 1, unit);
        carry = [Buffer.from(chunk.subarray(from))];
        carried = chunk.length - from;
      }
      yield;
      if (performance.now() - sliceStarted > sliceMs()) {
        await yieldToLoop();
        sliceStarted = performance.now();
      }
    }
    if (carried > 0) {
      const line = Buffer.concat(carry, carried);
      this.line(line, 0, line.length, ++no, unit);
      this.lastLine = no;
    }
  }

  /** One NDJSON line, b[start, end) without its newline. */
  private line(b: Buffer, start: number, end: number, no: number, unit: Unit): void {
    if (end > start && b[end - 1] === 13) end--; // CRLF
    if (end === start) return;
    if (b[start] === 123) {
      if (this.observationBytes(b, start, end, no)) return;
      const clock = readClockBytes(b, start, end);
      if (clock) {
        this.accepted++;
        this.clocks.push(clock);
        return;
      }
    }
    if (!isUtf8(b.subarray(start, end))) {
      const at = invalidUtf8At(b, start, end) - start + 1;
      throw new AppError(
        400,
        'invalid_utf8',
        `${unit} ${no}: not valid UTF-8 (byte ${at} of the ${unit})`,
        {
          line: no,
        },
      );
    }
    const text = b.toString('utf8', start, end);
    if (b[start] !== 123 && text.trim() === '') return; // a blank line
    this.add(parseLine(text, no, unit), no);
  }

  /**
   * The common observation line from its bytes, straight to the sink; false, having done
   * nothing, for a line the general way must read.
   */
  private observationBytes(b: Buffer, start: number, end: number, line: number): boolean {
    const f = this.fields;
    if (!readObservationBytes(b, start, end, f)) return false;
    const atStart = f[AT] as number;
    const atEnd = f[AT + 1] as number;
    const atUs = parseUtcBytes(b, atStart, atEnd);
    if (atUs === undefined) return false; // another form of RFC 3339, or none: the general way
    if (atUs === null) throw badTimestamp(line, 'at');
    this.accepted++;
    const changeStart = f[CHANGE] as number;
    const changeEnd = f[CHANGE + 1] as number;
    const stageStart = f[STAGE] as number;
    const stageEnd = f[STAGE + 1] as number;
    const sameStage =
      stageStart < 0
        ? this.stageBytes === null
        : this.stageBytes !== null && sameBytes(b, stageStart, stageEnd, this.stageBytes);
    if (!sameStage || !sameBytes(b, changeStart, changeEnd, this.changeBytes)) {
      const seen = this.contexts.find(
        (c) =>
          sameBytes(b, changeStart, changeEnd, c.changeBytes) &&
          (stageStart < 0
            ? c.stageBytes === null
            : c.stageBytes !== null && sameBytes(b, stageStart, stageEnd, c.stageBytes)),
      );
      if (seen) this.switchTo(seen);
      else
        this.useChange(
          b.toString('latin1', changeStart, changeEnd),
          stageStart < 0 ? undefined : b.toString('latin1', stageStart, stageEnd),
          line,
        );
    }
    const proxyStart = f[PROXY] as number;
    const proxyEnd = f[PROXY + 1] as number;
    const nodeStart = f[NODE] as number;
    const nodeEnd = f[NODE + 1] as number;
    this.apps.addBytes(b, proxyStart, proxyEnd, atUs, nodeStart, nodeEnd);
    this.observations.observationBytes(
      b,
      proxyStart,
      proxyEnd,
      nodeStart,
      nodeEnd,
      atUs,
      f[CAUSE] as number,
      f[CAUSE + 1] as number,
    );
    return true;
  }

  /** One decoded event of any kind. */
  add(event: ProbeEvent, line: number): void {
    this.accepted++;
    switch (event.type) {
      case 'observation': {
        const at = this.timestamp(event.at, line, 'at');
        // Observations of one change and stage come in runs: their lookups are made once per run.
        if (event.change !== this.change || event.stage !== this.stage)
          this.useChange(event.change, event.stage, line);
        this.apps.add(event.proxy, at.us, event.node ?? null);
        this.observations.observation(event.proxy, event.node, at.us, event.cause, event.attrs);
        break;
      }
      case 'change':
        this.addChange(event, line);
        break;
      case 'incident': {
        const from = this.timestamp(event.from, line, 'from');
        const to = event.to === undefined ? undefined : this.timestamp(event.to, line, 'to');
        if (to && to.us < from.us) {
          throw new AppError(400, 'invalid_event', `line ${line}: "to" is earlier than "from"`, {
            line,
            field: 'to',
          });
        }
        this.incidents.push({
          kind: event.kind,
          node: event.node,
          proxy: event.proxy,
          from: from.text,
          to: to?.text,
          attrs: event.attrs,
        });
        break;
      }
      case 'lifecycle': {
        const at = this.timestamp(event.at, line, 'at');
        let phase = this.phases.get(event.phase);
        if (!phase) {
          phase = { entities: new FirstApplications(), attrsTotal: null };
          this.phases.set(event.phase, phase);
        }
        phase.entities.add(event.entity, at.us);
        const total = event.attrs?.total;
        if (typeof total === 'number' && (phase.attrsTotal === null || total > phase.attrsTotal))
          phase.attrsTotal = total;
        this.lifecycle.push({
          phase: event.phase,
          entity: event.entity,
          node: event.node,
          at: at.text,
          attrs: event.attrs,
        });
        break;
      }
      case 'clock':
        this.clocks.push(this.clock(event, line));
        break;
    }
  }

  /** A clock event's offset and error from whichever forms it gives, checked. */
  private clock(event: ClockEvent, line: number): DecodedClock {
    const bad = (field: string, message: string) =>
      new AppError(400, 'invalid_event', `line ${line}: ${message}`, { line, field });
    const us = (field: 'at' | 't1' | 't2' | 't3' | 't4') => {
      const value = event[field];
      return value === undefined ? undefined : this.timestamp(value, line, field).us;
    };
    const at = us('at');
    const ts = [us('t1'), us('t2'), us('t3'), us('t4')] as const;
    const given = ts.filter((t) => t !== undefined).length;
    if (given > 0 && given < 4) {
      const missing = ['t1', 't2', 't3', 't4'][ts.indexOf(undefined)] as string;
      throw bad(missing, `"${missing}" is missing: an exchange needs all of t1, t2, t3 and t4`);
    }
    let exchange: { offsetUs: number; errorUs: number; atUs: number } | undefined;
    if (given === 4) {
      const [t1, t2, t3, t4] = ts as unknown as [number, number, number, number];
      const problem = exchangeProblem(t1, t2, t3, t4);
      if (problem) throw bad(problem.field, problem.message);
      exchange = { ...offsetFromExchange(t1, t2, t3, t4), atUs: Math.round((t2 + t3) / 2) };
    }
    const { offsetMs, errorMs } = event;
    if (offsetMs !== undefined && errorMs === undefined)
      throw bad('errorMs', '"errorMs" is missing: an offset needs the most it can be wrong by');
    if (errorMs !== undefined && offsetMs === undefined)
      throw bad('offsetMs', '"offsetMs" is missing: "errorMs" is the error of an offset');
    const measured =
      offsetMs === undefined
        ? undefined
        : { offsetUs: offsetMs * 1000, errorUs: (errorMs as number) * 1000 };
    if (!measured && !exchange)
      throw bad('offsetMs', 'a clock event needs "offsetMs" with "errorMs", or t1..t4');
    const atUs = at ?? exchange?.atUs;
    if (atUs === undefined)
      throw bad('at', '"at" is missing: an offset is a reading at a moment of the reference clock');
    if (measured && exchange) {
      const both = agreeingOffset(measured, exchange);
      if (!both) {
        const ms = (us: number) => Math.round(us) / 1000;
        throw bad(
          'offsetMs',
          `"offsetMs" ${offsetMs} ± ${errorMs} ms disagrees with t1..t4, which give ${ms(exchange.offsetUs)} ± ${ms(exchange.errorUs)} ms (node minus reference)`,
        );
      }
      return { node: event.node, atUs, ...both };
    }
    return {
      node: event.node,
      atUs,
      ...((measured ?? exchange) as { offsetUs: number; errorUs: number }),
    };
  }

  /** A change and stage seen before, made current again without a lookup or a copy. */
  private switchTo(c: ObservationContext): void {
    this.change = c.change;
    this.changeBytes = c.changeBytes;
    this.stage = c.stage;
    this.stageBytes = c.stageBytes;
    this.apps = c.apps;
    this.observations.useChange(c.changeBytes, c.stageBytes);
  }

  /** The change and stage that the next observations are of. */
  private useChange(change: string, stage: string | undefined, line: number): void {
    const cached = this.contexts.find((c) => c.change === change && c.stage === stage);
    if (cached) {
      this.switchTo(cached);
      return;
    }
    this.change = change;
    // The same byte arrays for a change and stage every time: the sink keys its parts by them.
    this.changeBytes =
      this.contexts.find((c) => c.change === change)?.changeBytes ?? Buffer.from(change);
    this.stage = stage;
    this.stageBytes = stage === undefined ? null : Buffer.from(stage);
    if (!this.references.has(change)) this.references.set(change, line);
    let stages = this.applications.get(change);
    if (!stages) {
      stages = new Map();
      this.applications.set(change, stages);
    }
    // An observation without a stage and one that names `applied` are of one stage.
    const key = stage ?? APPLIED_STAGE;
    let found = stages.get(key);
    if (!found) {
      found = new FirstApplications();
      stages.set(key, found);
    }
    this.apps = found;
    this.observations.useChange(this.changeBytes, this.stageBytes);
    // Lines alternate between a few changes and stages at most: the last 16 are kept.
    if (this.contexts.length >= 16) this.contexts.shift();
    this.contexts.push({
      change,
      changeBytes: this.changeBytes,
      stage,
      stageBytes: this.stageBytes,
      apps: found,
    });
  }

  private addChange(event: ChangeEvent, line: number): void {
    const atUs = this.timestamp(event.at, line, 'at').us;
    const earlier = this.changes.get(event.id);
    if (earlier) {
      const field = differingField(earlier.event, earlier.atUs, event, atUs);
      if (field) {
        throw new AppError(
          409,
          'change_conflict',
          `line ${line}: change "${event.id}" was already given on line ${earlier.line} with a different "${field}"`,
          { line, field },
        );
      }
      return;
    }
    this.changes.set(event.id, { event, atUs, line });
  }
}

/** The first field in which two descriptions of one change differ, if any. */
export function differingField(
  a: { kind: string; target: string; action: string; expected?: number | null | undefined },
  aAtUs: number,
  b: { kind: string; target: string; action: string; expected?: number | null | undefined },
  bAtUs: number,
): string | undefined {
  if (a.kind !== b.kind) return 'kind';
  if (a.target !== b.target) return 'target';
  if (a.action !== b.action) return 'action';
  if (aAtUs !== bAtUs) return 'at';
  if ((a.expected ?? null) !== (b.expected ?? null)) return 'expected';
  return undefined;
}
