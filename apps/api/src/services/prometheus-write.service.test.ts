import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import snappy from 'snappy';
import { describe, expect, it } from 'vitest';
import type { MetricRecord } from '../domain/metric-record.ts';
import type { FamilyMetadata } from '../repositories/prometheus-metadata.repository.ts';
import type { MetricsIngestService } from './metrics-ingest.service.ts';
import { histogramPartsAssembler } from './prometheus-histogram-parts.ts';
import { prometheusWriteService } from './prometheus-write.service.ts';

const WriteRequest = protobuf
  .loadSync(fileURLToPath(new URL('../ingest/prometheus/remote_write.proto', import.meta.url)))
  .lookupType('prometheus.WriteRequest');
const body = (request: object) =>
  snappy.compressSync(Buffer.from(WriteRequest.encode(WriteRequest.fromObject(request)).finish()));

describe('prometheus write service: kept 1.0 metadata', () => {
  it('metadata kept after a label set was read without any types its next series', async () => {
    const stored: MetricRecord[] = [];
    const ingest = {
      store: async (records: MetricRecord[]) => {
        stored.push(...records);
        return { held: 0, duplicates: 0, refusedRecords: new Map() };
      },
    } as unknown as MetricsIngestService;
    const saved = new Map<string, FamilyMetadata>();
    const parts = {
      merge: async (list: object[]) => list.map((p) => ({ ...p, state: 'pending', les: null })),
      knownLes: async () => new Map(),
      knownFamilies: async () => new Set<string>(),
      mark: async () => {},
      stale: async () => [],
      prune: async () => 0,
    };
    const service = prometheusWriteService({
      ingest,
      metadata: {
        save: async (_scope: string, families: Map<string, FamilyMetadata>) => {
          for (const [f, m] of families) saved.set(f, m);
        },
        of: async (_scope: string, families: string[]) =>
          new Map(families.flatMap((f) => (saved.has(f) ? [[f, saved.get(f)]] : []))),
      } as never,
      // biome-ignore lint/suspicious/noExplicitAny: a stub of the repository's methods
      histogramParts: histogramPartsAssembler({ parts: parts as any, ingest, waitMs: 300_000 }),
      maxInFlight: 4,
      maxReceiving: 4,
      maxBufferedBytes: 1 << 30,
    });
    const scope = { projectId: 'p' };
    const t = Date.now();
    const series = (value: number, timestamp: number) =>
      body({
        timeseries: [
          {
            labels: [
              { name: '__name__', value: 'memo_pushes' },
              { name: 'job', value: 'a' },
            ],
            samples: [{ value, timestamp }],
          },
        ],
      });
    // Read without metadata: by its name, a gauge; the label set is now known to have none.
    await service.write(series(1, t), 1, scope, 1 << 30);
    await service.write(series(2, t + 1000), 1, scope, 1 << 30);
    expect(stored.map((r) => r.kind)).toEqual(['gauge', 'gauge']);
    // Then its metadata, sent apart: the same label set's next series is a counter.
    await service.write(
      body({ metadata: [{ type: 1, metricFamilyName: 'memo_pushes', help: '', unit: '' }] }),
      1,
      scope,
      1 << 30,
    );
    stored.length = 0;
    await service.write(series(3, t + 2000), 1, scope, 1 << 30);
    expect(stored.map((r) => r.kind)).toEqual(['counter']);
  });
});
