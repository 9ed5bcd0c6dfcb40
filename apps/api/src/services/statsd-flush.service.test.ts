import { describe, expect, it } from 'vitest';
import type { MetricRecord } from '../domain/metric-record.ts';
import type { StoreResult } from './metrics-ingest.service.ts';
import { statsdFlushService } from './statsd-flush.service.ts';

const quiet = { info() {}, warn() {}, error() {} };
const stored = (n: number): StoreResult => ({
  stored: n,
  duplicates: 0,
  held: 0,
  refused: new Map(),
  refusedRecords: new Map(),
});

function service(store: (records: MetricRecord[]) => Promise<StoreResult>) {
  return statsdFlushService({
    ingest: { store: (records) => store(records) },
    log: quiet,
    scope: { projectId: 'p1' },
    flushMs: 10_000,
    backlogMaxPoints: 1000,
  });
}

describe('statsdFlushService', () => {
  it('writes one record per series of the interval, tags parsed and the run taken out', async () => {
    const written: MetricRecord[] = [];
    const flusher = service(async (records) => {
      written.push(...records);
      return stored(records.length);
    });
    flusher.datagram(
      Buffer.from('mesh.pushes:2|c|#run:r1,node:a\nmesh.pushes:3|c|#run:r1,node:a\n'),
    );
    flusher.receive(Buffer.from('mesh.latency:12|ms|#run:r1\n'));
    await flusher.flush();
    expect(written.map((r) => [r.name, r.kind, r.runRef, r.tags, r.sum])).toEqual(
      expect.arrayContaining([
        ['mesh.pushes', 'counter', 'r1', { node: 'a' }, 5],
        ['mesh.latency', 'timer', 'r1', {}, 12],
      ]),
    );
    expect(flusher.stats()).toMatchObject({
      datagrams: 1,
      lines: 3,
      rowsWritten: 2,
      project: 'p1',
      backlogPoints: 0,
    });
  });

  it('keeps an interval while the database is away and writes it once it is back', async () => {
    let up = false;
    const flusher = service(async (records) => {
      if (!up) throw Object.assign(new Error('connection terminated'), { code: '57P01' });
      return stored(records.length);
    });
    flusher.receive(Buffer.from('mesh.pushes:1|c|#run:r1\n'));
    const flushed = flusher.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(flusher.stats()).toMatchObject({ backlogPoints: 1, rowsWritten: 0 });
    up = true;
    await flushed;
    expect(flusher.stats()).toMatchObject({ backlogPoints: 0, rowsWritten: 1 });
    expect(flusher.stats().flushErrors).toBeGreaterThan(0);
  });

  it('counts a line dropped before parsing as malformed', () => {
    const flusher = service(async (records) => stored(records.length));
    flusher.malformed('x'.repeat(200), 'a TCP line over 65536 bytes');
    expect(flusher.stats().malformed).toBe(1);
  });
});
