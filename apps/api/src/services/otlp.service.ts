// OTLP/HTTP metrics: decode, map to records, store; with a bound on requests in progress
// so that an overloaded replica answers 503 + Retry-After (exporters retry) instead of
// queueing without end.
import { AppError } from '../errors.ts';
import { decodeOtlpJson, OtlpDecodeError } from '../ingest/otlp/otlp-message.ts';
import { mapOtlpMetrics, mapOtlpProtobuf, reasonsText } from '../ingest/otlp/otlp-metrics.ts';
import { OtlpTagSets } from '../ingest/otlp/otlp-tags.ts';
import { RETRY_AFTER_OVERLOADED_S } from './ingest.service.ts';
import type { MetricsIngestService, WriteScope } from './metrics-ingest.service.ts';

/** What a client is told of points kept for a run that does not exist yet. */
export const HELD_NOTE =
  "kept for a run of their project and deployment.environment created later to claim (or set meshbench.run to a run's id or slug)";

export type OtlpFormat = 'protobuf' | 'json';

export interface OtlpResult {
  rejected: number;
  message: string;
}

export interface OtlpLimits {
  /** Requests decoded and stored at once (MESHBENCH_MAX_CONCURRENT_OTLP). */
  maxInFlight: number;
  /** Requests whose bodies may be arriving at once. */
  maxReceiving: number;
  /** Bytes of OTLP bodies (decompressed) held in memory at once, by all requests. */
  maxBufferedBytes: number;
}

export function otlpService(deps: { ingest: MetricsIngestService } & OtlpLimits) {
  const { ingest, maxInFlight, maxReceiving, maxBufferedBytes } = deps;
  const counters = {
    requests: 0,
    dataPoints: 0,
    rejected: 0,
    held: 0,
    duplicates: 0,
    overloaded: 0,
  };
  let inFlight = 0;
  let receiving = 0;
  let buffered = 0;
  const tagSets = new OtlpTagSets();
  const overloaded = (message: string) => {
    counters.overloaded++;
    const error = new AppError(503, 'overloaded', `${message}; retry later`);
    error.retryAfterS = RETRY_AFTER_OVERLOADED_S;
    return error;
  };
  /** A release that gives its slot back once, however often it is called. */
  const slot = (release: () => void) => {
    let released = false;
    return () => {
      if (!released) release();
      released = true;
    };
  };

  return {
    counters,
    /**
     * A slot for a request's body to arrive in, or a 503 when as many are arriving as may.
     * Slow senders hold these, not the slots of the work (admit), so they cannot lock the
     * exporters that send at once out.
     */
    admitBody(): () => void {
      if (receiving >= maxReceiving) {
        throw overloaded(`${maxReceiving} OTLP requests are arriving already`);
      }
      receiving++;
      return slot(() => receiving--);
    },
    /**
     * Holds `bytes` more of a body in memory, or a 503 when all bodies together would be
     * over the bound; `release` gives them back.
     */
    buffer(bytes: number): void {
      if (buffered + bytes > maxBufferedBytes) {
        throw overloaded(
          `the server holds ${Math.round(buffered / 1048576)} MiB of OTLP requests already`,
        );
      }
      buffered += bytes;
    },
    unbuffer(bytes: number): void {
      buffered -= bytes;
    },
    /** A slot to decode and store a request in, or a 503 when all are taken. */
    admit(): () => void {
      if (inFlight >= maxInFlight) {
        throw overloaded(
          `${maxInFlight} OTLP requests are in progress already (MESHBENCH_MAX_CONCURRENT_OTLP)`,
        );
      }
      inFlight++;
      return slot(() => inFlight--);
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
