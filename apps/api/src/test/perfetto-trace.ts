// Reading a Perfetto trace back in tests: decoded by protobufjs with the vendored upstream
// proto, and its slices rebuilt from BEGIN/END as Perfetto does (timestamp order, ties in
// trace order; an END closes its track's innermost open slice).
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const root = protobuf.loadSync(
  fileURLToPath(new URL('../export/perfetto/perfetto_trace.proto', import.meta.url)),
);
const Trace = root.lookupType('perfetto.protos.Trace');

/** A TracePacket as protobufjs gives it with longs as strings and enums as names. */
export interface Packet {
  timestamp?: string;
  trustedPacketSequenceId?: number;
  trackDescriptor?: { uuid: string; parentUuid?: string; name: string; childOrdering?: string };
  trackEvent?: { type: string; trackUuid: string; name?: string };
}

export const decodeTrace = (bytes: Uint8Array): Packet[] =>
  (
    Trace.toObject(Trace.decode(bytes), { longs: String, enums: String }) as {
      packet?: Packet[];
    }
  ).packet ?? [];

export interface Slice {
  track: string;
  name: string;
  begin: string;
  end: string;
  depth: number;
}

export function slicesOf(packets: Packet[]): Slice[] {
  const events = packets
    .map((p, i) => ({ p, i }))
    .filter(({ p }) => p.trackEvent)
    .sort((a, b) => {
      const d = BigInt(a.p.timestamp ?? 0) - BigInt(b.p.timestamp ?? 0);
      return d < 0n ? -1 : d > 0n ? 1 : a.i - b.i;
    });
  const open = new Map<string, { name: string; begin: string }[]>();
  const slices: Slice[] = [];
  for (const { p } of events) {
    const e = p.trackEvent as NonNullable<Packet['trackEvent']>;
    const stack = open.get(e.trackUuid) ?? [];
    open.set(e.trackUuid, stack);
    if (e.type === 'TYPE_SLICE_BEGIN') {
      stack.push({ name: e.name ?? '', begin: p.timestamp ?? '' });
    } else {
      const s = stack.pop();
      if (!s) throw new Error(`END without BEGIN on track ${e.trackUuid}`);
      slices.push({ track: e.trackUuid, ...s, end: p.timestamp ?? '', depth: stack.length });
    }
  }
  for (const [track, stack] of open) {
    if (stack.length > 0) throw new Error(`slices left open on track ${track}`);
  }
  return slices;
}

/** The tracks of a trace, and each slice with the name of its track's parent (the node). */
export function tracksAndSlices(packets: Packet[]) {
  const tracks = packets.flatMap((p) => (p.trackDescriptor ? [p.trackDescriptor] : []));
  const byUuid = new Map(tracks.map((t) => [t.uuid, t]));
  const slices = slicesOf(packets).map((s) => ({
    node: byUuid.get(byUuid.get(s.track)?.parentUuid ?? '')?.name,
    name: s.name,
    begin: s.begin,
    end: s.end,
    depth: s.depth,
  }));
  return { tracks, byUuid, slices };
}

/** Epoch µs as the decimal epoch ns a trace holds, by BigInt arithmetic. */
export const nsOf = (us: number) => (BigInt(us) * 1000n).toString();
