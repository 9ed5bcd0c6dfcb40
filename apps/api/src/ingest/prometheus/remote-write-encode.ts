// Encodes remote-write requests as a sender does, for the demo runner and the benchmark:
// prometheus.WriteRequest (1.0) and io.prometheus.write.v2.Request (2.0), float samples
// and metadata only, field numbers as in the vendored upstream protos beside this file;
// snappy block-compressed. Its tests decode what it writes with protobufjs and those protos.
import protobuf from 'protobufjs/minimal.js';
import snappy from 'snappy';

export interface SeriesToSend {
  /** Name, value pairs; `__name__` among them. */
  labels: [string, string][];
  samples: { value: number; timestampMs: number; startMs?: number }[];
  /** 2.0: the series' metadata type (MetricType: 1 counter, 2 gauge, 3 histogram...). */
  type?: number;
  unit?: string;
}

const LEN = 2;
const key = (field: number, wireType: number) => (field << 3) | wireType;

/** prometheus.WriteRequest with its timeseries (labels, samples). */
export function encodeWriteRequest(series: SeriesToSend[]): Uint8Array {
  const w = protobuf.Writer.create();
  for (const s of series) {
    w.uint32(key(1, LEN)).fork();
    for (const [name, value] of s.labels) {
      w.uint32(key(1, LEN)).fork().uint32(key(1, LEN)).string(name);
      w.uint32(key(2, LEN)).string(value).ldelim();
    }
    for (const p of s.samples) {
      w.uint32(key(2, LEN)).fork().uint32(key(1, 1)).double(p.value);
      w.uint32(key(2, 0)).int64(p.timestampMs).ldelim();
    }
    w.ldelim();
  }
  return w.finish();
}

/** io.prometheus.write.v2.Request: symbols, then each series by reference. */
export function encodeRequestV2(series: SeriesToSend[]): Uint8Array {
  const symbols = [''];
  const index = new Map<string, number>([['', 0]]);
  const ref = (s: string) => {
    let i = index.get(s);
    if (i === undefined) {
      i = symbols.length;
      symbols.push(s);
      index.set(s, i);
    }
    return i;
  };
  const body = protobuf.Writer.create();
  for (const s of series) {
    body.uint32(key(5, LEN)).fork();
    body.uint32(key(1, LEN)).fork();
    for (const [name, value] of s.labels) body.uint32(ref(name)).uint32(ref(value));
    body.ldelim();
    for (const p of s.samples) {
      body.uint32(key(2, LEN)).fork().uint32(key(1, 1)).double(p.value);
      body.uint32(key(2, 0)).int64(p.timestampMs);
      if (p.startMs) body.uint32(key(3, 0)).int64(p.startMs);
      body.ldelim();
    }
    if (s.type || s.unit) {
      body.uint32(key(5, LEN)).fork();
      if (s.type) body.uint32(key(1, 0)).uint32(s.type);
      if (s.unit) body.uint32(key(4, 0)).uint32(ref(s.unit));
      body.ldelim();
    }
    body.ldelim();
  }
  const w = protobuf.Writer.create();
  for (const s of symbols) w.uint32(key(4, LEN)).string(s);
  const head = w.finish();
  const tail = body.finish();
  const out = new Uint8Array(head.length + tail.length);
  out.set(head, 0);
  out.set(tail, head.length);
  return out;
}

/** Snappy's block format, as remote write requires. */
export const snappyBlock = (bytes: Uint8Array): Buffer =>
  snappy.compressSync(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

export const REMOTE_WRITE_V1_TYPE = 'application/x-protobuf';
export const REMOTE_WRITE_V2_TYPE = 'application/x-protobuf;proto=io.prometheus.write.v2.Request';
