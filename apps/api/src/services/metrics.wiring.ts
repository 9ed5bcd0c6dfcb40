// The metrics use cases wired to their repositories, for the services plugin.
import { hostname } from 'node:os';
import type { Database } from '../repositories/database.ts';
import { lifecycleRepository } from '../repositories/lifecycle.repository.ts';
import { metricsRepository } from '../repositories/metrics.repository.ts';
import { prometheusHistogramPartsRepository } from '../repositories/prometheus-histogram-parts.repository.ts';
import { prometheusMetadataRepository } from '../repositories/prometheus-metadata.repository.ts';
import type { RunsRepository, RunWindow } from '../repositories/runs.repository.ts';
import { metricsService } from './metrics.service.ts';
import { metricsIngestService } from './metrics-ingest.service.ts';
import { type OtlpLimits, otlpService } from './otlp.service.ts';
import { HISTOGRAM_PARTS_WAIT_MS, histogramPartsAssembler } from './prometheus-histogram-parts.ts';
import { prometheusWriteService } from './prometheus-write.service.ts';
import { timelineService } from './timeline.service.ts';

export function metricsServices(
  database: Database,
  runs: RunsRepository,
  holdMs: number,
  otlpLimits: OtlpLimits,
) {
  const metrics = metricsRepository(database);
  const lifecycle = lifecycleRepository(database.db);
  // Names this process in the rows it writes: several replicas write rows for one interval.
  const replica = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  const metricsIngest = metricsIngestService({
    metrics,
    runs,
    replica,
    holdMs,
  });
  return {
    metrics: metricsService({ runs, metrics, lifecycle }),
    timeline: timelineService({ runs, metrics, lifecycle }),
    metricsIngest,
    otlp: otlpService({ ingest: metricsIngest, ...otlpLimits }),
    /** Prometheus remote write, bounded as OTLP is (the same limits, slots of its own). */
    prometheusWrite: prometheusWriteService({
      ingest: metricsIngest,
      metadata: prometheusMetadataRepository(database.db),
      histogramParts: histogramPartsAssembler({
        parts: prometheusHistogramPartsRepository(database.db),
        ingest: metricsIngest,
        waitMs: HISTOGRAM_PARTS_WAIT_MS,
      }),
      ...otlpLimits,
    }),
    /** A new run takes the held points of its project and environment in its window. */
    claimHeld: (run: RunWindow) => metrics.claimHeld(run),
    expireHeld: (holdMs: number, maxPoints: number) => metrics.expireHeld(holdMs, maxPoints),
  };
}
