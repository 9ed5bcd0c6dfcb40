// The rows of a batch's events as COPY takes them, in each table's column order: the
// observations in the binary format, written as the decoder reads them, without a string
// or an object per row; incidents and lifecycle events (few) as text rows.
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
import type {
  DecodedIncident,
  DecodedLifecycle,
  ObservationSink,
} from '../domain/event-records.ts';

export const OBSERVATION_COLUMNS = [
  'run_id',
  'change_id',
  'proxy',
  'node',
  'at',
  'cause',
  'attrs',
  'batch_id',
  // Last, so that a row's end (attrs, batch, stage) changes only when the stage does.
  'stage',
];
export const INCIDENT_COLUMNS = [
  'run_id',
  'kind',
  'node',
  'proxy',
  'from',
  'to',
  'attrs',
  'batch_id',
];
export const LIFECYCLE_COLUMNS = ['run_id', 'phase', 'entity', 'node', 'at', 'attrs', 'batch_id'];

/** jsonb's binary form is a version byte, then the JSON text. */
const JSONB_VERSION = 1;

/**
 * One batch's observation rows in COPY's binary format, as the decoder hands them over;
 * `rows()` gives them out in chunks while the decoder reads the body.
 */
interface RowParts {
  prefix: Uint8Array;
  tail: Uint8Array;
  rowEnd: Uint8Array;
}

export class ObservationRows implements ObservationSink {
  private readonly out = new CopyBinaryWriter();
  private readonly runField: Uint8Array;
  /** What ends a row without attrs: a NULL, then the batch and the stage. */
  private rowEnd: Uint8Array;
  /** What ends a row after its attrs: the batch and the stage (NULL when none is given). */
  private tail: Uint8Array;
  private readonly batchField: Uint8Array;
  /** What the rows of the current change start with: field count, run, change. */
  private prefix: Uint8Array = new Uint8Array(0);

  constructor(runId: string, batchId: number) {
    this.runField = uuidField(runId);
    this.batchField = int64Field(batchId);
    this.rowEnd = new Uint8Array(0);
    this.tail = new Uint8Array(0);
    this.useStage(null);
  }

  private useStage(stage: Uint8Array | null): void {
    const batch = this.batchField;
    const tail = new Uint8Array(batch.length + 4 + (stage?.length ?? 0));
    tail.set(batch, 0);
    if (stage === null) putNullField(tail, batch.length);
    else {
      putInt32(tail, batch.length, stage.length);
      tail.set(stage, batch.length + 4);
    }
    this.tail = tail;
    this.rowEnd = new Uint8Array(4 + tail.length);
    putNullField(this.rowEnd, 0);
    this.rowEnd.set(tail, 4);
  }

  /**
   * The rows, chunk by chunk, header and trailer included: each step of `decoding` (a
   * part of the body read) lets out the chunks filled so far.
   */
  async *rows(decoding: AsyncIterable<unknown>): AsyncGenerator<Uint8Array> {
    for await (const _ of decoding) yield* this.out.take();
    yield* this.out.end();
  }

  /**
   * Rows' fixed parts per change and stage, by the identity of the byte arrays the decoder
   * hands (it hands the same ones for each change and stage it has seen): a batch whose
   * lines alternate between stages switches without building them again.
   */
  private readonly parts = new Map<Uint8Array, Map<Uint8Array | null, RowParts>>();

  useChange(change: Uint8Array, stage: Uint8Array | null): void {
    let byStage = this.parts.get(change);
    if (!byStage) {
      byStage = new Map();
      this.parts.set(change, byStage);
    }
    let parts = byStage.get(stage);
    if (!parts) {
      this.useStage(stage);
      const run = this.runField;
      const prefix = new Uint8Array(2 + run.length + 4 + change.length);
      putInt16(prefix, 0, OBSERVATION_COLUMNS.length);
      prefix.set(run, 2);
      putInt32(prefix, 2 + run.length, change.length);
      prefix.set(change, 2 + run.length + 4);
      parts = { prefix, tail: this.tail, rowEnd: this.rowEnd };
      byStage.set(stage, parts);
    }
    this.prefix = parts.prefix;
    this.tail = parts.tail;
    this.rowEnd = parts.rowEnd;
  }

  observationBytes(
    b: Uint8Array,
    proxyStart: number,
    proxyEnd: number,
    nodeStart: number,
    nodeEnd: number,
    atUs: number,
    causeStart: number,
    causeEnd: number,
  ): void {
    const { prefix, out } = this;
    out.room(
      prefix.length +
        3 * 4 +
        12 +
        (proxyEnd - proxyStart) +
        (nodeEnd - nodeStart) +
        (causeEnd - causeStart) +
        this.rowEnd.length,
    );
    const d = out.buf;
    d.set(prefix, out.pos);
    let p = putBytesField(d, out.pos + prefix.length, b, proxyStart, proxyEnd);
    p = nodeStart < 0 ? putNullField(d, p) : putBytesField(d, p, b, nodeStart, nodeEnd);
    p = putTimestampField(d, p, atUs);
    p = causeStart < 0 ? putNullField(d, p) : putBytesField(d, p, b, causeStart, causeEnd);
    d.set(this.rowEnd, p);
    out.pos = p + this.rowEnd.length;
  }

  observation(
    proxy: string,
    node: string | undefined,
    atUs: number,
    cause: string | undefined,
    attrs: Record<string, unknown> | undefined,
  ): void {
    const out = this.out;
    const attrsJson = attrs && JSON.stringify(attrs);
    // Room for the whole row first (text at 3 bytes a UTF-16 unit at most): a chunk the
    // writer hands out ends at a row's end, so chunks can be stored as COPYs of their own.
    const textRoom = (t: string | undefined) => 5 + (t === undefined ? 0 : t.length * 3);
    out.room(
      this.prefix.length +
        textRoom(proxy) +
        textRoom(node) +
        12 +
        textRoom(cause) +
        textRoom(attrsJson) +
        this.tail.length,
    );
    out.bytes(this.prefix);
    out.text(proxy);
    out.text(node);
    out.room(12);
    out.pos = putTimestampField(out.buf, out.pos, atUs);
    out.text(cause);
    out.text(attrsJson, JSONB_VERSION);
    out.bytes(this.tail);
  }
}

const attrsText = (attrs: Record<string, unknown> | undefined) =>
  attrs === undefined ? '\\N' : copyText(JSON.stringify(attrs));

/** Incidents as COPY text rows of INCIDENT_COLUMNS. */
export function incidentRows(
  runId: string,
  batchId: number,
  incidents: readonly DecodedIncident[],
): string[] {
  return incidents.map(
    (e) =>
      `${runId}\t${copyText(e.kind)}\t${copyText(e.node)}\t${copyText(e.proxy)}\t${e.from}\t${e.to ?? '\\N'}\t${attrsText(e.attrs)}\t${batchId}\n`,
  );
}

/** Lifecycle events as COPY text rows of LIFECYCLE_COLUMNS. */
export function lifecycleRows(
  runId: string,
  batchId: number,
  events: readonly DecodedLifecycle[],
): string[] {
  return events.map(
    (e) =>
      `${runId}\t${copyText(e.phase)}\t${copyText(e.entity)}\t${copyText(e.node)}\t${e.at}\t${attrsText(e.attrs)}\t${batchId}\n`,
  );
}
