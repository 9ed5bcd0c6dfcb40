// Remote-write bodies for tests, encoded by protobufjs from the vendored upstream protos
// (ingest/prometheus/remote_write.proto, write_v2.proto), never by the receiver's own code,
// and snappy block-compressed as the specification requires; and a POST of one.
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import snappy from 'snappy';

const root = protobuf.loadSync(
  ['remote_write.proto', 'write_v2.proto'].map((f) =>
    fileURLToPath(new URL(`../ingest/prometheus/${f}`, import.meta.url)),
  ),
);
export const WriteRequest = root.lookupType('prometheus.WriteRequest');
export const RequestV2 = root.lookupType('io.prometheus.write.v2.Request');

export const CONTENT_TYPE_V1 = 'application/x-protobuf';
export const CONTENT_TYPE_V2 = 'application/x-protobuf;proto=io.prometheus.write.v2.Request';

/** A 1.0 WriteRequest as protobufjs' object form (camelCase fields). */
export function encodeV1(message: object): Uint8Array {
  const err = WriteRequest.verify(message);
  if (err) throw new Error(`not a WriteRequest: ${err}`);
  return WriteRequest.encode(WriteRequest.fromObject(message)).finish();
}

export function encodeV2(message: object): Uint8Array {
  const err = RequestV2.verify(message);
  if (err) throw new Error(`not a v2 Request: ${err}`);
  return RequestV2.encode(RequestV2.fromObject(message)).finish();
}

/** A v2 series in a readable form, symbolized into `symbols` (which starts with ""). */
export interface SeriesV2 {
  labels: Record<string, string>;
  samples?: { value: number; timestamp: number; startTimestamp?: number }[];
  histograms?: object[];
  exemplars?: { labels?: Record<string, string>; value: number; timestamp: number }[];
  metadata?: { type: number; help?: string; unit?: string };
  createdTimestamp?: number;
}

export function requestV2(series: SeriesV2[]): object {
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
  const refs = (labels: Record<string, string>) =>
    Object.entries(labels).flatMap(([k, v]) => [ref(k), ref(v)]);
  const timeseries = series.map((s) => ({
    labelsRefs: refs(s.labels),
    samples: s.samples ?? [],
    histograms: s.histograms ?? [],
    exemplars: (s.exemplars ?? []).map((e) => ({
      labelsRefs: refs(e.labels ?? {}),
      value: e.value,
      timestamp: e.timestamp,
    })),
    ...(s.metadata
      ? {
          metadata: {
            type: s.metadata.type,
            helpRef: ref(s.metadata.help ?? ''),
            unitRef: ref(s.metadata.unit ?? ''),
          },
        }
      : {}),
    ...(s.createdTimestamp ? { createdTimestamp: s.createdTimestamp } : {}),
  }));
  return { symbols, timeseries };
}

export const compress = (bytes: Uint8Array): Buffer =>
  snappy.compressSync(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

export interface WriteAnswer {
  status: number;
  text: string;
  samples: number | null;
  histograms: number | null;
  exemplars: number | null;
  retryAfter: string | null;
}

const header = (r: Response, what: string) => {
  const v = r.headers.get(`x-prometheus-remote-write-${what}-written`);
  return v === null ? null : Number(v);
};

/** POSTs a compressed body to /api/v1/write as Prometheus does. */
export async function postWrite(
  baseUrl: string,
  token: string,
  body: Uint8Array,
  contentType = CONTENT_TYPE_V1,
  headers: Record<string, string> = {},
): Promise<WriteAnswer> {
  const response = await fetch(`${baseUrl}/api/v1/write`, {
    method: 'POST',
    headers: {
      'content-type': contentType,
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': contentType === CONTENT_TYPE_V1 ? '0.1.0' : '2.0.0',
      authorization: `Bearer ${token}`,
      ...headers,
    },
    body,
  });
  return {
    status: response.status,
    text: await response.text(),
    samples: header(response, 'samples'),
    histograms: header(response, 'histograms'),
    exemplars: header(response, 'exemplars'),
    retryAfter: response.headers.get('retry-after'),
  };
}
