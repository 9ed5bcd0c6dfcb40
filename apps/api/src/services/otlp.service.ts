// OTLP/HTTP metrics: decode, map to records, store; with a bound on requests in progress
// so that an overloaded replica answers 503 + Retry-After (exporters retry) instead of
// queueing without end.
import { AppError } from '../errors.ts';
import {
  decodeOtlpJson,
  mapOtlpMetrics,
  mapOtlpProtobuf,
  OtlpDecodeError,
  OtlpTagSets,
} from '../ingest/otlp-metrics.ts';
import type { MetricsIngestService } from './metrics-ingest.service.ts';

export type OtlpFormat = 'protobuf' | 'json';

export interface OtlpResult {
  rejected: number;
  message: string;
}

export function otlpService(deps: { ingest: MetricsIngestService; maxInFlight: number }) {
  const { ingest, maxInFlight } = deps;
  const counters = { requests: 0, dataPoints: 0, rejected: 0, overloaded: 0 };
  let inFlight = 0;
  const tagSets = new OtlpTagSets();

  return {
    counters,
    /** Throws a 503 when this replica already works on as many requests as it may. */
    admit(): () => void {
      if (inFlight >= maxInFlight) {
        counters.overloaded++;
        throw new AppError(503, 'overloaded', 'too many OTLP requests in progress; retry later');
      }
      inFlight++;
      let released = false;
      return () => {
        if (!released) inFlight--;
        released = true;
      };
    },

    async export(body: Buffer, format: OtlpFormat): Promise<OtlpResult> {
      counters.requests++;
      let mapped: ReturnType<typeof mapOtlpMetrics>;
      try {
        mapped =
          format === 'protobuf'
            ? mapOtlpProtobuf(body, Date.now(), tagSets)
            : mapOtlpMetrics(decodeOtlpJson(body.toString('utf8')), Date.now(), tagSets);
      } catch (error) {
        if (error instanceof OtlpDecodeError) {
          throw new AppError(400, 'malformed_body', error.message);
        }
        // The decoded message had a shape the mapping could not read: bad data, not a bug.
        if (error instanceof TypeError || error instanceof RangeError) {
          throw new AppError(
            400,
            'malformed_body',
            `the request could not be read: ${error.message}`,
          );
        }
        throw error;
      }
      counters.dataPoints += mapped.dataPoints;
      const result = await ingest.store(mapped.records);
      const rejected = mapped.rejected + result.unmatched;
      counters.rejected += rejected;
      let message = mapped.reason;
      if (result.unmatched > 0) {
        const why = `${result.unmatched} data point(s) matched no run: set the attribute meshbench.run to a run id or slug, or deployment.environment to a run's environment within its time window`;
        message = message ? `${message}; ${why}` : why;
      }
      return { rejected, message };
    },
  };
}
export type OtlpService = ReturnType<typeof otlpService>;
