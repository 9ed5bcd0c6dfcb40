// Vegeta's binary results written as `vegeta attack` writes them: the bytes Go's gob.Encoder
// gives for each *vegeta.Result, for the demo and the tests (checked against Go's own output
// in vegeta-go.decoder.test.ts: fixtures/generated/vegeta-gob, encoding/gob on Vegeta's struct).
// Follows tsenart/vegeta at cf5811269046c672a604b1eb352204d30f16ae4a lib/results.go (Result's
// fields in order, NewEncoder: one gob.Encoder, Encode per result) and golang/go
// src/encoding/gob: encoder.go sendActualType (the value's type first, then its fields' types
// in field order, a map's key then element; each definition a message of its own), type.go at
// 09408a5b454a4382cde223f6bfa6b5cde64ba026 (ids in the order a fresh process builds them:
// Result 65, time.Time 66 as a GobEncoder named "Time", []string 67 unnamed, http.Header 68,
// a map's id set after its element's), encode.go (fields with zero values left out, a map's
// count unsigned, elements of maps and slices sent even when zero) and src/time/time.go
// AppendBinary (GobEncode's bytes).

export interface VegetaResult {
  attack?: string;
  seq?: number;
  code?: number;
  /** Epoch seconds and nanoseconds, and the zone offset east of UTC in minutes (null: UTC). */
  timestamp: { unixS: number; nanos: number; offsetMin: number | null };
  latencyNs: number;
  bytesOut?: number;
  bytesIn?: number;
  error?: string;
  body?: Uint8Array | null;
  method?: string;
  url?: string;
  headers?: Record<string, string[]> | null;
}

class Out {
  private parts: number[] = [];
  get length() {
    return this.parts.length;
  }
  uint(v: number | bigint): void {
    const big = BigInt(v);
    if (big < 0x80n) {
      this.parts.push(Number(big));
      return;
    }
    const bytes: number[] = [];
    for (let x = big; x > 0n; x >>= 8n) bytes.unshift(Number(x & 0xffn));
    this.parts.push(256 - bytes.length, ...bytes);
  }
  int(v: number): void {
    const big = BigInt(v);
    this.uint(big < 0n ? (~big << 1n) | 1n : big << 1n);
  }
  bytes(b: Uint8Array): void {
    this.uint(b.length);
    this.parts.push(...b);
  }
  string(s: string): void {
    this.bytes(Buffer.from(s, 'utf8'));
  }
  raw(...b: number[]): void {
    this.parts.push(...b);
  }
  take(): number[] {
    return this.parts;
  }
}

/** A struct's fields: each (field number, writer) when its value is not zero. */
function struct(out: Out, fields: [number, (() => void) | null][]): void {
  let last = -1;
  for (const [n, write] of fields) {
    if (!write) continue;
    out.uint(n - last);
    last = n;
    write();
  }
  out.uint(0);
}

const RESULT_FIELDS: [string, number][] = [
  ['Attack', 6],
  ['Seq', 3],
  ['Code', 3],
  ['Timestamp', 66],
  ['Latency', 2],
  ['BytesOut', 3],
  ['BytesIn', 3],
  ['Error', 6],
  ['Body', 5],
  ['Method', 6],
  ['URL', 6],
  ['Headers', 68],
];

/** A type definition message's body: (-id, wireType with one kind set). */
function definition(id: number, kind: number, body: (out: Out) => void): number[] {
  const out = new Out();
  out.int(-id);
  struct(out, [[kind, () => body(out)]]);
  return out.take();
}

const common = (out: Out, name: string, id: number) =>
  struct(out, [
    [0, name ? () => out.string(name) : null],
    [1, () => out.int(id)],
  ]);

function definitions(): number[][] {
  return [
    // StructT (wireType field 2): Result.
    definition(65, 2, (out) =>
      struct(out, [
        [0, () => common(out, 'Result', 65)],
        [
          1,
          () => {
            out.uint(RESULT_FIELDS.length);
            for (const [name, id] of RESULT_FIELDS)
              struct(out, [
                [0, () => out.string(name)],
                [1, () => out.int(id)],
              ]);
          },
        ],
      ]),
    ),
    // GobEncoderT (field 4): time.Time.
    definition(66, 4, (out) => struct(out, [[0, () => common(out, 'Time', 66)]])),
    // MapT (field 3): http.Header = map[string][]string.
    definition(68, 3, (out) =>
      struct(out, [
        [0, () => common(out, 'Header', 68)],
        [1, () => out.int(6)],
        [2, () => out.int(67)],
      ]),
    ),
    // SliceT (field 1): []string.
    definition(67, 1, (out) =>
      struct(out, [
        [0, () => common(out, '', 67)],
        [1, () => out.int(6)],
      ]),
    ),
  ];
}

/** UNIX_TO_INTERNAL of golang/go src/time/time.go: seconds from year 1 to 1970. */
const UNIX_TO_INTERNAL_S = 62135596800n;

/** time.Time's GobEncode (MarshalBinary, version 1): 15 bytes. */
function timeBytes(t: VegetaResult['timestamp']): Uint8Array {
  const b = new Uint8Array(15);
  const view = new DataView(b.buffer);
  b[0] = 1;
  view.setBigInt64(1, BigInt(t.unixS) + UNIX_TO_INTERNAL_S, false);
  view.setInt32(9, t.nanos, false);
  view.setInt16(13, t.offsetMin === null ? -1 : t.offsetMin, false);
  return b;
}

function value(r: VegetaResult): number[] {
  const out = new Out();
  out.int(65);
  const nonEmpty = (s: string | undefined) => (s ? () => out.string(s) : null);
  const nonZero = (v: number | undefined) => (v ? () => out.uint(v) : null);
  struct(out, [
    [0, nonEmpty(r.attack)],
    [1, nonZero(r.seq)],
    [2, nonZero(r.code)],
    [3, () => out.bytes(timeBytes(r.timestamp))],
    [4, r.latencyNs ? () => out.int(r.latencyNs) : null],
    [5, nonZero(r.bytesOut)],
    [6, nonZero(r.bytesIn)],
    [7, nonEmpty(r.error)],
    [8, r.body && r.body.length > 0 ? () => out.bytes(r.body as Uint8Array) : null],
    [9, nonEmpty(r.method)],
    [10, nonEmpty(r.url)],
    [
      11,
      // A nil map is left out; an empty one is sent (encode.go: "We send zero-length (but
      // non-nil) maps").
      r.headers
        ? () => {
            const entries = Object.entries(r.headers as Record<string, string[]>);
            out.uint(entries.length);
            for (const [k, vs] of entries) {
              out.string(k);
              out.uint(vs.length);
              for (const v of vs) out.string(v);
            }
          }
        : null,
    ],
  ]);
  return out.take();
}

function message(body: number[]): number[] {
  const out = new Out();
  out.uint(body.length);
  out.raw(...body);
  return out.take();
}

/** The bytes `vegeta attack` writes for these results, in order. */
export function encodeVegetaGob(results: Iterable<VegetaResult>): Buffer {
  const parts: number[][] = [];
  let first = true;
  for (const r of results) {
    if (first) for (const d of definitions()) parts.push(message(d));
    first = false;
    parts.push(message(value(r)));
  }
  return Buffer.concat(parts.map((p) => Buffer.from(p)));
}

/** A result of Vegeta's JSON lines (`vegeta encode -to json`) as the Result it encodes. */
export function vegetaResultOfJson(line: string): VegetaResult {
  const o = JSON.parse(line) as {
    attack?: string;
    seq?: number;
    code?: number;
    timestamp: string;
    latency: number;
    bytes_out?: number;
    bytes_in?: number;
    error?: string;
    body?: string | null;
    method?: string;
    url?: string;
    headers?: Record<string, string[]> | null;
  };
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|([+-])(\d\d):(\d\d))$/.exec(
    o.timestamp,
  );
  if (!m) throw new Error(`not an RFC 3339 timestamp: ${o.timestamp}`);
  const offsetMin =
    m[3] === 'Z' ? null : (m[4] === '-' ? -1 : 1) * (Number(m[5]) * 60 + Number(m[6]));
  const localS = Date.parse(`${m[1]}Z`) / 1000;
  return {
    ...(o.attack !== undefined ? { attack: o.attack } : {}),
    ...(o.seq !== undefined ? { seq: o.seq } : {}),
    ...(o.code !== undefined ? { code: o.code } : {}),
    timestamp: {
      unixS: localS - (offsetMin ?? 0) * 60,
      nanos: Number((m[2] ?? '').padEnd(9, '0')),
      offsetMin,
    },
    latencyNs: o.latency,
    ...(o.bytes_out !== undefined ? { bytesOut: o.bytes_out } : {}),
    ...(o.bytes_in !== undefined ? { bytesIn: o.bytes_in } : {}),
    ...(o.error !== undefined ? { error: o.error } : {}),
    body: o.body ? Buffer.from(o.body, 'base64') : null,
    ...(o.method !== undefined ? { method: o.method } : {}),
    ...(o.url !== undefined ? { url: o.url } : {}),
    headers: o.headers ?? null,
  };
}
