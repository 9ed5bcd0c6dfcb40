// Turns a batch's body into COPY rows and the facts the batch must check at its end:
// changes it defines, changes it references, and each change's first applications.

import { isUtf8 } from 'node:buffer';
import {
  CopyBinaryWriter,
  copyText,
  int64Field,
  putBytesField,
  putInt16,
  putInt32,
  putNullField,
  putTimestampField,
  uuidField,
} from '@meshbench/db';
import type { ChangeEvent, ProbeEvent } from '@meshbench/schema';
import { FirstApplications } from '../domain/first-applications.ts';
import { AppError } from '../errors.ts';
import { type BatchFormat, bodyTooLarge, decodeJsonArray, parseLine } from './event-stream.ts';
import {
  AT,
  CAUSE,
  CHANGE,
  FIELD_SLOTS,
  NODE,
  PROXY,
  readObservationBytes,
} from './observation-bytes.ts';
import { invalidUtf8At } from './stored-text.ts';
import { formatTimestampUs, parseTimestampUs, parseUtcBytes } from './timestamps.ts';

export interface NumberedEvent {
  line: number;
  event: ProbeEvent;
}

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
/** run_id, change_id, proxy, node, at, cause, attrs, batch_id */
const OBSERVATION_FIELDS = 8;
/** jsonb's binary form is a version byte, then the JSON text. */
const JSONB_VERSION = 1;
/**
 * The longest NDJSON line taken, in bytes: an event is a few hundred. A longer line is
 * refused as soon as it is seen to be, so that a body of one endless line costs no more
 * than reading this much of it.
 */
export const MAX_LINE_BYTES = 1024 * 1024;

const lineTooLarge = (line: number) =>
  new AppError(
    413,
    'line_too_large',
    `line ${line} is longer than ${MAX_LINE_BYTES} bytes; one event per line`,
    { line },
  );

const attrsText = (attrs: Record<string, unknown> | undefined) =>
  attrs === undefined ? '\\N' : copyText(JSON.stringify(attrs));

const badTimestamp = (line: number, field: string) =>
  new AppError(400, 'invalid_event', `line ${line}: "${field}" is not a valid RFC 3339 timestamp`, {
    line,
    field,
  });

function sameBytes(b: Uint8Array, from: number, to: number, other: Uint8Array): boolean {
  if (to - from !== other.length) return false;
  for (let i = 0; i < other.length; i++) if (b[from + i] !== other[i]) return false;
  return true;
}

export class BatchAssembler {
  readonly changes = new Map<string, BatchChange>();
  /** change id -> first line that referenced it */
  readonly references = new Map<string, number>();
  readonly applications = new Map<string, FirstApplications>();
  readonly incidentRows: string[] = [];
  readonly lifecycleRows: string[] = [];
  /** Per lifecycle phase: each entity's first arrival in this batch, the largest attrs.total. */
  readonly phases = new Map<string, BatchPhase>();
  accepted = 0;
  /** The number of the last NDJSON line read, blank ones included. */
  lastLine: number;

  private readonly out = new CopyBinaryWriter();
  private readonly fields = new Int32Array(FIELD_SLOTS);
  private readonly runField: Uint8Array;
  /** What ends a row without attrs: a NULL, then the batch. */
  private readonly rowEnd: Uint8Array;
  private readonly batchField: Uint8Array;
  /** The change of the observations being read, and what its rows start with. */
  private change: string | undefined;
  private changeBytes: Uint8Array = new Uint8Array(0);
  private changePrefix: Uint8Array = new Uint8Array(0);
  private apps = new FirstApplications();

  constructor(
    private readonly runId: string,
    private readonly batchId: number,
    /** The number of the body's first line: lines of a larger input keep their numbers. */
    firstLine = 1,
  ) {
    this.lastLine = firstLine - 1;
    this.runField = uuidField(runId);
    this.batchField = int64Field(batchId);
    this.rowEnd = new Uint8Array(4 + this.batchField.length);
    putNullField(this.rowEnd, 0);
    this.rowEnd.set(this.batchField, 4);
  }

  private timestamp(value: string, line: number, field: string): { us: number; text: string } {
    const us = parseTimestampUs(value);
    if (us === null) throw badTimestamp(line, field);
    return { us, text: PLAIN_TIMESTAMP.test(value) ? value : formatTimestampUs(us) };
  }

  /**
   * Reads the whole body and yields the observation rows for COPY as they come; every
   * other kind is kept for after the stream (they are few beside observations).
   */
  rows(
    body: AsyncIterable<Buffer>,
    format: BatchFormat,
    limit: number,
  ): AsyncGenerator<Uint8Array> {
    return format === 'ndjson'
      ? this.ndjsonRows(body, limit)
      : this.observationRows(decodeJsonArray(body, limit));
  }

  /** Rows of events already decoded (a JSON array's, or any source of numbered events). */
  async *observationRows(batches: AsyncIterable<NumberedEvent[]>): AsyncGenerator<Uint8Array> {
    for await (const events of batches) {
      for (const { line, event } of events) this.add(event, line);
      yield* this.out.take();
    }
    yield* this.out.end();
  }

  /**
   * NDJSON read as bytes: the common observation line goes from the body's bytes to COPY's
   * without a string or an object per line; any other line is decoded and parsed.
   */
  async *ndjsonRows(body: AsyncIterable<Buffer>, limit: number): AsyncGenerator<Uint8Array> {
    // A line split over chunks is kept as its parts until its end is seen: one copy of
    // each byte, however many chunks the line spans.
    let carry: Buffer[] = [];
    let carried = 0;
    let no = this.lastLine;
    let total = 0;
    for await (const chunk of body) {
      total += chunk.length;
      if (total > limit) throw bodyTooLarge(limit);
      let from = 0;
      if (carried > 0) {
        const nl = chunk.indexOf(10);
        if (nl === -1) {
          if (carried + chunk.length > MAX_LINE_BYTES) throw lineTooLarge(no + 1);
          // Copied: the caller may reuse the chunk's memory.
          carry.push(Buffer.from(chunk));
          carried += chunk.length;
          continue;
        }
        if (carried + nl > MAX_LINE_BYTES) throw lineTooLarge(no + 1);
        carry.push(chunk.subarray(0, nl));
        const line = Buffer.concat(carry, carried + nl);
        carry = [];
        carried = 0;
        this.line(line, 0, line.length, ++no);
        this.lastLine = no;
        from = nl + 1;
      }
      for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
        if (nl - from > MAX_LINE_BYTES) throw lineTooLarge(no + 1);
        this.line(chunk, from, nl, ++no);
        from = nl + 1;
      }
      this.lastLine = no;
      if (from < chunk.length) {
        if (chunk.length - from > MAX_LINE_BYTES) throw lineTooLarge(no + 1);
        carry = [Buffer.from(chunk.subarray(from))];
        carried = chunk.length - from;
      }
      yield* this.out.take();
    }
    if (carried > 0) {
      const line = Buffer.concat(carry, carried);
      this.line(line, 0, line.length, ++no);
      this.lastLine = no;
    }
    yield* this.out.end();
  }

  /** One NDJSON line, b[start, end) without its newline. */
  private line(b: Buffer, start: number, end: number, no: number): void {
    if (end > start && b[end - 1] === 13) end--; // CRLF
    if (end === start) return;
    if (b[start] === 123 && this.observationBytes(b, start, end, no)) return;
    if (!isUtf8(b.subarray(start, end))) {
      const at = invalidUtf8At(b, start, end) - start + 1;
      throw new AppError(
        400,
        'invalid_utf8',
        `line ${no}: not valid UTF-8 (byte ${at} of the line)`,
        {
          line: no,
        },
      );
    }
    const text = b.toString('utf8', start, end);
    if (b[start] !== 123 && text.trim() === '') return; // a blank line
    this.add(parseLine(text, no), no);
  }

  /**
   * The common observation line from its bytes, straight into a COPY row; false, having
   * done nothing, for a line the general way must read.
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
    if (!sameBytes(b, changeStart, changeEnd, this.changeBytes)) {
      this.useChange(b.toString('latin1', changeStart, changeEnd), line);
    }
    const proxyStart = f[PROXY] as number;
    const proxyEnd = f[PROXY + 1] as number;
    this.apps.addBytes(b, proxyStart, proxyEnd, atUs);

    const prefix = this.changePrefix;
    const nodeStart = f[NODE] as number;
    const causeStart = f[CAUSE] as number;
    const out = this.out;
    out.room(prefix.length + 3 * 4 + 12 + end - start + this.rowEnd.length);
    const d = out.buf;
    d.set(prefix, out.pos);
    let p = putBytesField(d, out.pos + prefix.length, b, proxyStart, proxyEnd);
    p =
      nodeStart < 0 ? putNullField(d, p) : putBytesField(d, p, b, nodeStart, f[NODE + 1] as number);
    p = putTimestampField(d, p, atUs);
    p =
      causeStart < 0
        ? putNullField(d, p)
        : putBytesField(d, p, b, causeStart, f[CAUSE + 1] as number);
    d.set(this.rowEnd, p);
    out.pos = p + this.rowEnd.length;
    return true;
  }

  /** One decoded event of any kind. */
  add(event: ProbeEvent, line: number): void {
    this.accepted++;
    switch (event.type) {
      case 'observation': {
        const at = this.timestamp(event.at, line, 'at');
        // Observations of one change come in runs: its lookups are made once per run.
        if (event.change !== this.change) this.useChange(event.change, line);
        this.apps.add(event.proxy, at.us);
        const out = this.out;
        out.bytes(this.changePrefix);
        out.text(event.proxy);
        out.text(event.node);
        out.room(12);
        out.pos = putTimestampField(out.buf, out.pos, at.us);
        out.text(event.cause);
        out.text(event.attrs && JSON.stringify(event.attrs), JSONB_VERSION);
        out.bytes(this.batchField);
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
        this.incidentRows.push(
          `${this.runId}\t${copyText(event.kind)}\t${copyText(event.node)}\t${copyText(event.proxy)}\t${from.text}\t${to ? to.text : '\\N'}\t${attrsText(event.attrs)}\t${this.batchId}\n`,
        );
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
        this.lifecycleRows.push(
          `${this.runId}\t${copyText(event.phase)}\t${copyText(event.entity)}\t${copyText(event.node)}\t${at.text}\t${attrsText(event.attrs)}\t${this.batchId}\n`,
        );
        break;
      }
    }
  }

  /** The change that the next observations are of. */
  private useChange(change: string, line: number): void {
    this.change = change;
    this.changeBytes = Buffer.from(change);
    if (!this.references.has(change)) this.references.set(change, line);
    let found = this.applications.get(change);
    if (!found) {
      found = new FirstApplications();
      this.applications.set(change, found);
    }
    this.apps = found;
    const changeBytes = this.changeBytes;
    const prefix = new Uint8Array(2 + this.runField.length + 4 + changeBytes.length);
    putInt16(prefix, 0, OBSERVATION_FIELDS);
    prefix.set(this.runField, 2);
    putInt32(prefix, 2 + this.runField.length, changeBytes.length);
    prefix.set(changeBytes, 2 + this.runField.length + 4);
    this.changePrefix = prefix;
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
