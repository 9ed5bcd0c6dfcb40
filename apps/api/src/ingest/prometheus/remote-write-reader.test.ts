// The hand-written reader against protobufjs decoding with the vendored upstream protos:
// seeded random requests (1.0 and 2.0, every field the reader reads), encoded by protobufjs,
// must read back as protobufjs reads them; mutated bodies must fail as a decode error, never
// as a crash.
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import {
  encodeV1,
  encodeV2,
  RequestV2,
  requestV2,
  WriteRequest,
} from '../../test/remote-write-proto.ts';
import {
  decodeRequestV2,
  decodeWriteRequestV1,
  RemoteWriteDecodeError,
  type WireHistogram,
  type WireRequest,
} from './remote-write-reader.ts';

/** mulberry32: a seeded generator, so a failure is reproducible. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const int = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rand, xs: T[]): T => xs[int(r, 0, xs.length - 1)] as T;
const doubles = [0, -0, 1.5, -2.25, 1e300, -1e-300, Number.NaN, Infinity, -Infinity, 0.1];
const double = (r: Rand) => (r() < 0.5 ? pick(r, doubles) : (r() - 0.5) * 10 ** int(r, -5, 15));
const text = (r: Rand) =>
  pick(r, ['', 'a', 'job', '__name__', 'le', 'höhe', '🌍', 'x'.repeat(int(r, 1, 300))]);
/** Times across int64's range as Prometheus may send them (negative before 1970). */
const time = (r: Rand) =>
  pick(r, [0, 1, -1, Date.UTC(2026, 0, 1), 2 ** 53 - 1, -(2 ** 52), int(r, 0, 2 ** 40)]);

function histogram(r: Rand, v2: boolean): Record<string, unknown> {
  const floats = r() < 0.3;
  const spans = () =>
    Array.from({ length: int(r, 0, 3) }, () => ({ offset: int(r, -50, 50), length: int(r, 0, 5) }));
  const h: Record<string, unknown> = {
    sum: double(r),
    schema: int(r, -53, 8),
    zeroThreshold: Math.abs(double(r)),
    negativeSpans: spans(),
    positiveSpans: spans(),
    resetHint: int(r, 0, 3),
    timestamp: time(r),
    customValues: Array.from({ length: int(r, 0, 4) }, () => double(r)),
  };
  if (floats) {
    h.countFloat = Math.abs(double(r));
    h.zeroCountFloat = Math.abs(double(r));
    h.negativeCounts = Array.from({ length: int(r, 0, 4) }, () => double(r));
    h.positiveCounts = Array.from({ length: int(r, 0, 4) }, () => double(r));
  } else {
    h.countInt = pick(r, [0, 7, 2 ** 53, 2 ** 32 + 5, int(r, 0, 1e6)]);
    h.zeroCountInt = int(r, 0, 1000);
    h.negativeDeltas = Array.from({ length: int(r, 0, 4) }, () => int(r, -1e6, 1e6));
    h.positiveDeltas = Array.from({ length: int(r, 0, 4) }, () =>
      pick(r, [int(r, -1e6, 1e6), -(2 ** 40), 2 ** 45]),
    );
  }
  if (v2 && r() < 0.5) h.startTimestamp = time(r);
  return h;
}

function randomV1(r: Rand): object {
  const label = () => ({ name: text(r), value: text(r) });
  return {
    timeseries: Array.from({ length: int(r, 0, 5) }, () => ({
      labels: Array.from({ length: int(r, 0, 4) }, label),
      samples: Array.from({ length: int(r, 0, 3) }, () => ({
        value: double(r),
        timestamp: time(r),
      })),
      exemplars: Array.from({ length: int(r, 0, 2) }, () => ({
        labels: Array.from({ length: int(r, 0, 2) }, label),
        value: double(r),
        timestamp: time(r),
      })),
      histograms: Array.from({ length: int(r, 0, 2) }, () => histogram(r, false)),
    })),
    metadata: Array.from({ length: int(r, 0, 3) }, () => ({
      type: int(r, 0, 7),
      metricFamilyName: text(r) || 'm',
      help: text(r),
      unit: text(r),
    })),
  };
}

function randomV2(r: Rand): object {
  const labels = () =>
    Object.fromEntries(Array.from({ length: int(r, 0, 4) }, () => [text(r), text(r)]));
  return requestV2(
    Array.from({ length: int(r, 0, 5) }, () => ({
      labels: labels(),
      samples: Array.from({ length: int(r, 0, 3) }, () => ({
        value: double(r),
        timestamp: time(r),
        ...(r() < 0.5 ? { startTimestamp: time(r) } : {}),
      })),
      histograms: Array.from({ length: int(r, 0, 2) }, () => histogram(r, true)),
      exemplars: Array.from({ length: int(r, 0, 2) }, () => ({
        labels: labels(),
        value: double(r),
        timestamp: time(r),
      })),
      ...(r() < 0.7 ? { metadata: { type: int(r, 0, 7), help: text(r), unit: text(r) } } : {}),
      ...(r() < 0.2 ? { createdTimestamp: time(r) } : {}),
    })),
  );
}

// ---- what protobufjs reads, in the reader's shape ----

type Obj = Record<string, unknown>;
const opts = { longs: Number, enums: Number, defaults: true, arrays: true, oneofs: true };
const nums = (xs: unknown) => (xs as number[]).map(Number);

function histogramOf(h: Obj): Omit<WireHistogram, 'inexact'> {
  const spans = (s: unknown) => (s as Obj[]).map((x) => ({ offset: x.offset, length: x.length }));
  return {
    count: h.count === 'countFloat' ? (h.countFloat as number) : Number(h.countInt),
    countIsFloat: h.count === 'countFloat',
    sum: h.sum as number,
    schema: h.schema as number,
    zeroThreshold: h.zeroThreshold as number,
    zeroCount:
      h.zeroCount === 'zeroCountFloat' ? (h.zeroCountFloat as number) : Number(h.zeroCountInt),
    negativeSpans: spans(h.negativeSpans) as WireHistogram['negativeSpans'],
    negativeDeltas: nums(h.negativeDeltas),
    negativeCounts: nums(h.negativeCounts),
    positiveSpans: spans(h.positiveSpans) as WireHistogram['positiveSpans'],
    positiveDeltas: nums(h.positiveDeltas),
    positiveCounts: nums(h.positiveCounts),
    resetHint: h.resetHint as number,
    timestamp: Number(h.timestamp),
    customValues: nums(h.customValues),
    startTimestamp: Number(h.startTimestamp ?? 0),
  };
}

function expectedV1(bytes: Uint8Array) {
  const o = WriteRequest.toObject(WriteRequest.decode(bytes), opts) as Obj;
  const metadata = new Map<string, { type: number; unit: string; help: string }>();
  for (const m of o.metadata as Obj[]) {
    if (m.metricFamilyName) {
      metadata.set(m.metricFamilyName as string, {
        type: m.type as number,
        unit: m.unit as string,
        help: m.help as string,
      });
    }
  }
  const pairs = (ls: unknown) => (ls as Obj[]).flatMap((l) => [l.name, l.value]);
  return {
    version: 1,
    metadata,
    series: (o.timeseries as Obj[]).map((s) => ({
      labels: pairs(s.labels),
      values: (s.samples as Obj[]).map((x) => x.value),
      times: (s.samples as Obj[]).map((x) => Number(x.timestamp)),
      starts: (s.samples as Obj[]).map(() => 0),
      histograms: (s.histograms as Obj[]).map(histogramOf),
      exemplars: (s.exemplars as Obj[]).map((e) => ({
        labels: pairs(e.labels),
        value: e.value,
        timestamp: Number(e.timestamp),
      })),
      type: 0,
      unit: '',
      createdMs: 0,
    })),
  };
}

function expectedV2(bytes: Uint8Array) {
  const o = RequestV2.toObject(RequestV2.decode(bytes), opts) as Obj;
  const symbols = o.symbols as string[];
  const look = (refs: unknown) => (refs as number[]).map((i) => symbols[i]);
  return {
    version: 2,
    metadata: new Map(),
    series: (o.timeseries as Obj[]).map((s) => {
      const meta = s.metadata as Obj | null;
      return {
        labels: look(s.labelsRefs),
        values: (s.samples as Obj[]).map((x) => x.value),
        times: (s.samples as Obj[]).map((x) => Number(x.timestamp)),
        starts: (s.samples as Obj[]).map((x) => Number(x.startTimestamp)),
        histograms: (s.histograms as Obj[]).map(histogramOf),
        exemplars: (s.exemplars as Obj[]).map((e) => ({
          labels: look(e.labelsRefs),
          value: e.value,
          timestamp: Number(e.timestamp),
        })),
        type: meta ? (meta.type as number) : 0,
        unit: meta ? (symbols[meta.unitRef as number] as string) : '',
        createdMs: Number(s.createdTimestamp),
      };
    }),
  };
}

/** What protobufjs has no counterpart for: the inexact flag. */
const withoutInexact = (w: WireRequest) => ({
  ...w,
  series: w.series.map((s) => ({
    ...s,
    histograms: s.histograms.map(({ inexact: _i, ...h }) => h),
  })),
});

describe('remote-write reader', () => {
  it('reads 2,000 random 1.0 requests as protobufjs does', () => {
    const r = rng(29);
    for (let i = 0; i < 2000; i++) {
      const bytes = encodeV1(randomV1(r));
      const got = decodeWriteRequestV1(Buffer.from(bytes));
      expect(withoutInexact(got)).toEqual(expectedV1(bytes));
    }
  });

  it('reads 2,000 random 2.0 requests as protobufjs does', () => {
    const r = rng(2029);
    for (let i = 0; i < 2000; i++) {
      const bytes = encodeV2(randomV2(r));
      const got = decodeRequestV2(Buffer.from(bytes));
      expect(withoutInexact(got)).toEqual(expectedV2(bytes));
    }
  });

  it('gives a label set sent with the same bytes as the same array, others apart', () => {
    const one = (labels: object[]) =>
      decodeWriteRequestV1(
        Buffer.from(encodeV1({ timeseries: [{ labels, samples: [{ value: 1 }] }] })),
      ).series[0]?.labels;
    const a = [
      { name: '__name__', value: 'up' },
      { name: 'job', value: 'a' },
    ];
    expect(one(a)).toBe(one(a));
    expect(one(a)).toEqual(['__name__', 'up', 'job', 'a']);
    const b = one([
      { name: '__name__', value: 'up' },
      { name: 'job', value: 'b' },
    ]);
    expect(b).toEqual(['__name__', 'up', 'job', 'b']);
    expect(one(a)).not.toBe(b);
  });

  it('reads symbols that follow the series, and unpacked repeated fields', () => {
    // Request { timeseries = 5 { labels_refs = 1 unpacked: 1, 2 } ; symbols = 4 "", "__name__", "up" }
    const w = protobuf.Writer.create();
    w.uint32((5 << 3) | 2).fork();
    w.uint32((1 << 3) | 0).uint32(1);
    w.uint32((1 << 3) | 0).uint32(2);
    w.ldelim();
    for (const s of ['', '__name__', 'up']) w.uint32((4 << 3) | 2).string(s);
    const got = decodeRequestV2(Buffer.from(w.finish()));
    expect(got.series[0]?.labels).toEqual(['__name__', 'up']);
  });

  it('flags integer counts beyond 2^53 instead of rounding them silently', () => {
    // 2^53 + 1 as a string: protobufjs encodes it exactly (verify() takes no strings).
    const bytes = WriteRequest.encode(
      WriteRequest.fromObject({
        timeseries: [{ histograms: [{ countInt: '9007199254740993', timestamp: 1 }] }],
      }),
    ).finish();
    expect(decodeWriteRequestV1(Buffer.from(bytes)).series[0]?.histograms[0]?.inexact).toBe(true);
    const exact = encodeV1({
      timeseries: [{ histograms: [{ countInt: 9007199254740991, timestamp: 1 }] }],
    });
    const h = decodeWriteRequestV1(Buffer.from(exact)).series[0]?.histograms[0];
    expect(h).toMatchObject({ count: 9007199254740991, inexact: false });
  });

  it('names a symbol reference past the table', () => {
    const bytes = encodeV2({ symbols: [''], timeseries: [{ labelsRefs: [0, 3] }] });
    expect(() => decodeRequestV2(Buffer.from(bytes))).toThrow(
      /timeseries\[0\]\.labels_refs refers to symbol 3, but the request has 1 symbols/,
    );
  });

  it('fails on 10,000 mutated bodies only with a decode error', () => {
    const r = rng(7);
    let failed = 0;
    for (let i = 0; i < 10_000; i++) {
      const v2 = i % 2 === 0;
      const bytes = Buffer.from(v2 ? encodeV2(randomV2(r)) : encodeV1(randomV1(r)));
      if (bytes.length === 0) continue;
      for (let k = int(r, 1, 3); k > 0; k--) bytes[int(r, 0, bytes.length - 1)] = int(r, 0, 255);
      const cut = r() < 0.3 ? bytes.subarray(0, int(r, 0, bytes.length)) : bytes;
      try {
        if (v2) decodeRequestV2(cut);
        else decodeWriteRequestV1(cut);
      } catch (error) {
        if (!(error instanceof RemoteWriteDecodeError)) throw error;
        failed++;
      }
    }
    expect(failed).toBeGreaterThan(500);
  });
});
