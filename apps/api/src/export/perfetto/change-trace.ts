// A change's propagation as a Perfetto trace: a root track for the change, one track per
// node under it, and under each node one track per proxy holding a slice from the change
// to the proxy's first observation at each stage. Every proxy track of a node has the same
// name, so the Perfetto UI merges them into one track per node and packs the overlapping
// slices into lanes (its documented way of showing overlapping, asynchronous slices);
// a collapsed node shows a summary of its proxies. Timestamps are Unix epoch nanoseconds,
// from the database's microseconds.
import type { ProxyStageRow } from '../../domain/event-records.ts';
import { LEXICOGRAPHIC, SLICE_BEGIN, SLICE_END, TraceWriter } from './trace-writer.ts';

export interface TraceChange {
  id: string;
  kind: string;
  target: string;
  action: string;
  atUs: number;
}

export const UNKNOWN_NODE = 'unknown node';
export const PROXY_TRACK_NAME = 'proxies';
const ROOT_UUID = 1;

export const rootTrackName = (c: TraceChange) =>
  `change ${c.id}: ${c.kind} ${c.target} ${c.action}`;

export class ChangeTrace {
  private readonly writer = new TraceWriter();
  private readonly nodes = new Map<string | null, number>();
  private nextUuid = ROOT_UUID + 1;
  private pending: ProxyStageRow[] = [];

  constructor(private readonly change: TraceChange) {
    this.writer.track({
      uuid: ROOT_UUID,
      name: rootTrackName(change),
      description:
        'One track per node; under it, one slice per proxy from the change to its first observation at each stage (meshbench).',
      childOrdering: LEXICOGRAPHIC,
    });
  }

  /** Encodes `rows` (ordered by proxy) and returns the bytes ready; a proxy's rows may
   * continue in the next call, so its packets wait until they have all come. */
  add(rows: readonly ProxyStageRow[]): Buffer {
    for (const row of rows) {
      if (this.pending.length > 0 && this.pending[0]?.proxy !== row.proxy) this.flushProxy();
      this.pending.push(row);
    }
    return this.writer.take();
  }

  /** The last bytes: the last proxy's packets. */
  finish(): Buffer {
    if (this.pending.length > 0) this.flushProxy();
    return this.writer.take();
  }

  private nodeTrack(node: string | null): number {
    let uuid = this.nodes.get(node);
    if (uuid === undefined) {
      uuid = this.nextUuid++;
      this.nodes.set(node, uuid);
      this.writer.track({ uuid, name: node ?? UNKNOWN_NODE, parentUuid: ROOT_UUID });
    }
    return uuid;
  }

  private flushProxy(): void {
    const rows = this.pending;
    this.pending = [];
    const proxy = rows[0]?.proxy ?? '';
    const node = rows.find((r) => r.node !== null)?.node ?? null;
    const parentUuid = this.nodeTrack(node);
    const track = this.nextUuid++;
    this.writer.track({ uuid: track, name: PROXY_TRACK_NAME, parentUuid });

    // Slices on one track must nest: all start (or, before the change, end) at the change,
    // so the longest is opened first. Events at one timestamp keep the order they are
    // written in (Perfetto's sorter breaks ties by position in the trace).
    const t0 = this.change.atUs;
    const before = rows.filter((r) => r.atUs < t0).sort((a, b) => a.atUs - b.atUs);
    const after = rows
      .filter((r) => r.atUs >= t0)
      .sort((a, b) => b.atUs - a.atUs || (a.stage < b.stage ? -1 : 1));
    for (const r of before) {
      this.writer.event(SLICE_BEGIN, r.atUs, track, `${proxy} ${r.stage} (before change)`);
    }
    for (const _ of before) this.writer.event(SLICE_END, t0, track);
    for (const r of after) this.writer.event(SLICE_BEGIN, t0, track, `${proxy} ${r.stage}`);
    for (const r of after.reverse()) this.writer.event(SLICE_END, r.atUs, track);
  }
}
