// The demo's and benchmark's encoder, decoded by protobufjs with the vendored upstream protos.
import snappy from 'snappy';
import { describe, expect, it } from 'vitest';
import { RequestV2, WriteRequest } from '../../test/remote-write-proto.ts';
import {
  encodeRequestV2,
  encodeWriteRequest,
  type SeriesToSend,
  snappyBlock,
} from './remote-write-encode.ts';

const series: SeriesToSend[] = [
  {
    labels: [
      ['__name__', 'pilot_xds_pushes'],
      ['type', 'eds'],
    ],
    samples: [
      { value: 7, timestampMs: 1767261600000, startMs: 1767261500000 },
      { value: 9.5, timestampMs: 1767261601000 },
    ],
    type: 1,
  },
  {
    labels: [['__name__', 'pilot_proxies']],
    samples: [{ value: 3, timestampMs: 1 }],
    unit: 'proxies',
  },
];
const opts = { longs: Number, enums: Number };

describe('remote-write encoder', () => {
  it('writes a 1.0 WriteRequest protobufjs reads as sent', () => {
    const o = WriteRequest.toObject(WriteRequest.decode(encodeWriteRequest(series)), opts);
    expect(o).toEqual({
      timeseries: [
        {
          labels: [
            { name: '__name__', value: 'pilot_xds_pushes' },
            { name: 'type', value: 'eds' },
          ],
          samples: [
            { value: 7, timestamp: 1767261600000 },
            { value: 9.5, timestamp: 1767261601000 },
          ],
        },
        {
          labels: [{ name: '__name__', value: 'pilot_proxies' }],
          samples: [{ value: 3, timestamp: 1 }],
        },
      ],
    });
  });

  it('writes a 2.0 Request with its symbols, starts and metadata', () => {
    const o = RequestV2.toObject(RequestV2.decode(encodeRequestV2(series)), opts) as {
      symbols: string[];
      timeseries: { labelsRefs: number[]; samples: object[]; metadata?: object }[];
    };
    expect(o.symbols[0]).toBe('');
    const labels = (refs: number[]) => refs.map((r) => o.symbols[r]);
    expect(labels(o.timeseries[0]?.labelsRefs ?? [])).toEqual([
      '__name__',
      'pilot_xds_pushes',
      'type',
      'eds',
    ]);
    expect(o.timeseries[0]?.samples).toEqual([
      { value: 7, timestamp: 1767261600000, startTimestamp: 1767261500000 },
      { value: 9.5, timestamp: 1767261601000 },
    ]);
    expect(o.timeseries[0]?.metadata).toEqual({ type: 1 });
    expect(o.timeseries[1]?.metadata).toEqual({ unitRef: o.symbols.indexOf('proxies') });
  });

  it('compresses in snappy block format', () => {
    const raw = encodeWriteRequest(series);
    const back = snappy.uncompressSync(snappyBlock(raw)) as Buffer;
    expect(Buffer.compare(back, Buffer.from(raw))).toBe(0);
  });
});
