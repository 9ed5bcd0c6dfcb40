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
  reasonsText,
} from '../ingest/otlp-metrics.ts';
import type { MetricsIngestService, WriteScope } from './metrics-ingest.service.ts';

/** What a client is told of points kept for a run that does not exist yet. */
export const HELD_NOTE =
  "kept for a run of their project and deployment.environment created later to claim (or set meshbench.run to a run's id or slug)";

export type OtlpFormat = 'protobuf' | 'json';

export interface OtlpResult {
  rejected: number;
  message: string;
}

export function otlpService(deps: { ingest: MetricsIngestService; maxInFlight: number }) {
  const { ingest, maxInFlight } = deps;
  const counters = {
    requests: 0,
    dataPoints: 0,
    rejected: 0,
    held: 0,
    duplicates: 0,
    overloaded: 0,
  };
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

    /** Stores what the request carries in runs of `scope` (the token's project, or any). */
    async export(body: Buffer, format: OtlpFormat, scope: WriteScope): Promise<OtlpResult> {
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
      const result = await ingest.store(mapped.records, scope);
      const reasons = new Map(mapped.reasons);
      for (const [why, n] of result.refused) reasons.set(why, (reasons.get(why) ?? 0) + n);
      const rejected = [...reasons.values()].reduce((a, b) => a + b, 0);
      counters.rejected += rejected;
      counters.held += result.held;
      counters.duplicates += result.duplicates;
      // Held and retried points are accepted: named in the message, not counted rejected.
      const notes = [
        ...(rejected > 0 ? [`rejected ${reasonsText(reasons)}`] : []),
        ...(result.held > 0
          ? [`${result.held} data point(s) matched no run yet: ${HELD_NOTE}`]
          : []),
        ...(result.duplicates > 0
          ? [
              `${result.duplicates} data point(s) were stored before (a retried export): stored once`,
            ]
          : []),
      ];
      return { rejected, message: notes.join('; ') };
    },
  };
}
export type OtlpService = ReturnType<typeof otlpService>;
