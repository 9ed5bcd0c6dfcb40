// The trace decoded by protobufjs with the vendored upstream proto, against tracks, parents,
// slices and nanosecond timestamps worked out here from the inputs, not from the encoder.
import { describe, expect, it } from 'vitest';
import type { ProxyStageRow } from '../../domain/event-records.ts';
import {
  decodeTrace as decode,
  nsOf as ns,
  type Packet,
  tracksAndSlices,
} from '../../test/perfetto-trace.ts';
import { ChangeTrace, type TraceChange } from './change-trace.ts';
import { SLICE_BEGIN, TraceWriter } from './trace-writer.ts';

const T0_US = Date.UTC(2026, 1, 1, 10, 0, 0) * 1000 + 123; // µs, not a whole ms
const change: TraceChange = {
  id: 'c1',
  kind: 'endpoint',
  target: 'hey',
  action: 'delete',
  atUs: T0_US,
};

function traceOf(batches: ProxyStageRow[][]): Packet[] {
  const trace = new ChangeTrace(change);
  const parts = batches.map((b) => trace.add(b));
  parts.push(trace.finish());
  return decode(Buffer.concat(parts));
}

describe('ChangeTrace', () => {
  const rows: ProxyStageRow[] = [
    { proxy: 'p1', node: 'n-2', stage: 'applied', atUs: T0_US + 150_000 },
    { proxy: 'p1', node: 'n-2', stage: 'received', atUs: T0_US + 40_000 },
    { proxy: 'p2', node: 'n-1', stage: 'applied', atUs: T0_US + 2_500 },
    { proxy: 'p3', node: null, stage: 'applied', atUs: T0_US - 700 },
    { proxy: 'p4', node: 'n-2', stage: 'applied', atUs: T0_US },
  ];

  it('writes a root track, one track per node under it, one per proxy under its node', () => {
    const packets = traceOf([rows]);
    const tracks = packets.flatMap((p) => (p.trackDescriptor ? [p.trackDescriptor] : []));
    const byUuid = new Map(tracks.map((t) => [t.uuid, t]));
    expect(byUuid.size).toBe(tracks.length); // uuids unique
    const roots = tracks.filter((t) => t.parentUuid === undefined);
    expect(roots).toEqual([
      expect.objectContaining({
        name: 'change c1: endpoint hey delete',
        childOrdering: 'LEXICOGRAPHIC',
      }),
    ]);
    const nodes = tracks.filter((t) => t.parentUuid === roots[0]?.uuid);
    expect(nodes.map((t) => t.name).sort()).toEqual(['n-1', 'n-2', 'unknown node']);
    const proxiesOf = (node: string) => {
      const uuid = nodes.find((t) => t.name === node)?.uuid;
      expect(uuid).toBeDefined();
      return tracks.filter((t) => t.parentUuid === uuid);
    };
    expect(proxiesOf('n-2')).toHaveLength(2);
    expect(proxiesOf('n-1')).toHaveLength(1);
    expect(proxiesOf('unknown node')).toHaveLength(1);
    for (const t of [...proxiesOf('n-2'), ...proxiesOf('n-1')]) expect(t.name).toBe('proxies');
    // A track is described before any event uses it.
    const described = new Set<string>();
    for (const p of packets) {
      if (p.trackDescriptor) described.add(p.trackDescriptor.uuid);
      if (p.trackEvent) expect(described.has(p.trackEvent.trackUuid)).toBe(true);
    }
    for (const p of packets.filter((q) => q.trackEvent)) {
      expect(p.trustedPacketSequenceId).toBe(1);
    }
  });

  it('slices from the change to each stage, nested longest first, in epoch ns', () => {
    const { slices } = tracksAndSlices(traceOf([rows]));
    expect(slices).toHaveLength(5);
    expect(slices).toEqual(
      expect.arrayContaining([
        { node: 'n-2', name: 'p1 applied', begin: ns(T0_US), end: ns(T0_US + 150_000), depth: 0 },
        { node: 'n-2', name: 'p1 received', begin: ns(T0_US), end: ns(T0_US + 40_000), depth: 1 },
        { node: 'n-1', name: 'p2 applied', begin: ns(T0_US), end: ns(T0_US + 2_500), depth: 0 },
        {
          node: 'unknown node',
          name: 'p3 applied (before change)',
          begin: ns(T0_US - 700),
          end: ns(T0_US),
          depth: 0,
        },
        { node: 'n-2', name: 'p4 applied', begin: ns(T0_US), end: ns(T0_US), depth: 0 },
      ]),
    );
    // 2026-02-01T10:00:00.000123Z in ns, written out by hand.
    expect(ns(T0_US)).toBe('1769940000000123000');
  });

  it('keeps a proxy whole when its rows span two batches, and each node once', () => {
    const whole = traceOf([rows]);
    const split = traceOf([rows.slice(0, 1), rows.slice(1, 3), [], rows.slice(3)]);
    expect(split).toEqual(whole);
  });

  it('writes an empty change as its root track alone', () => {
    const packets = traceOf([]);
    expect(packets).toHaveLength(1);
    expect(packets[0]?.trackDescriptor?.name).toBe('change c1: endpoint hey delete');
  });
});

describe('TraceWriter', () => {
  it('writes any epoch µs below 2^53 as exactly µs * 1000 ns', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const values = [0, 1, 127, 128, 2 ** 32 - 1, 2 ** 32, 4294967, 4294968, 2 ** 53 - 1];
    for (let i = 0; i < 2000; i++) values.push(Math.floor(next() * next() * 2 ** 53));
    const writer = new TraceWriter(9);
    for (const us of values) writer.event(SLICE_BEGIN, us, 5, 'x');
    const packets = decode(writer.take());
    expect(packets.map((p) => p.timestamp)).toEqual(values.map(ns));
    expect(packets.every((p) => p.trustedPacketSequenceId === 9)).toBe(true);
  });

  it('writes lengths of one, two and three bytes, and names in UTF-8', () => {
    const writer = new TraceWriter();
    const names = ['é', 'n'.repeat(200), 'ü'.repeat(20_000), '代理-42'];
    for (const [i, name] of names.entries()) {
      writer.track({ uuid: 2 ** 40 + i, name, parentUuid: 300 });
    }
    const packets = decode(writer.take());
    expect(packets.map((p) => p.trackDescriptor?.name)).toEqual(names);
    expect(packets.map((p) => p.trackDescriptor?.uuid)).toEqual(
      names.map((_, i) => String(2 ** 40 + i)),
    );
    expect(writer.size).toBe(0);
  });
});
