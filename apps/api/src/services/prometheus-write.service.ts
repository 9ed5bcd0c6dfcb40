// Prometheus remote write: a snappy-compressed Remote-Write 1.0 or 2.0 request decoded,
// mapped to metric records and stored as OTLP points are (run by `meshbench_run` or by
// `env` and time, held for a run created later, retries stored once), with what the sender
// must be told: how many samples, histogram samples and exemplars were written, and why
// any were not. Requests in progress are bounded: past the bound a 503 + Retry-After,
// which Prometheus retries (a 429 it would drop).
import snappy from 'snappy';
import type { MetricRecord } from '../domain/metric-record.ts';
import { AppError } from '../errors.ts';
import { type LabelSet, labelSetsOf, newMark } from '../ingest/prometheus/remote-write-labels.ts';
import { mapRemoteWrite } from '../ingest/prometheus/remote-write-map.ts';
import { addHeld, type Held, refusalText } from '../ingest/prometheus/remote-write-outcome.ts';
import {
  decodeRequestV2,
  decodeWriteRequestV1,
  RemoteWriteDecodeError,
  type WireRequest,
} from '../ingest/prometheus/remote-write-reader.ts';
import type {
  FamilyMetadata,
  PrometheusMetadataRepository,
} from '../repositories/prometheus-metadata.repository.ts';
import { RETRY_AFTER_OVERLOADED_S } from './ingest.service.ts';
import type { MetricsIngestService, WriteScope } from './metrics-ingest.service.ts';
import type { OtlpLimits } from './otlp.service.ts';
import type { HistogramPartsAssembler } from './prometheus-histogram-parts.ts';

/**
 * How long a family's kept metadata (or its having none), once read, is taken from memory:
 * metadata a request brings through this process is in memory at once, metadata kept
 * through another replica is read here within this long.
 */
export const METADATA_TTL_MS = 10_000;
const CACHE_LIMIT = 100_000;

/** What a sender is told of points kept for a run that does not exist yet. */
const HELD_NOTE =
  "kept for a run of their project and env label created later to claim (or set the label meshbench_run to a run's id or slug)";

export type RemoteWriteVersion = 1 | 2;

export interface RemoteWriteResult {
  written: Held;
  /** Empty when everything was written; else why what was not, for the response body. */
  refused: string;
  /** Notes that are no refusal (points held for a later run, retried points). */
  notes: string;
}

/** The uncompressed length a snappy block starts with (its varint preamble). */
export function snappyLength(body: Buffer): number {
  let result = 0;
  let shift = 0;
  for (let i = 0; i < 5 && i < body.length; i++) {
    const byte = body[i] as number;
    result += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7;
  }
  return Number.NaN;
}

export function prometheusWriteService(
  deps: {
    ingest: MetricsIngestService;
    metadata: Pick<PrometheusMetadataRepository, 'save' | 'of'>;
    /** Classic histogram points split across requests, made whole. */
    histogramParts: HistogramPartsAssembler;
  } & OtlpLimits,
) {
  const { ingest, metadata, histogramParts, maxInFlight, maxReceiving, maxBufferedBytes } = deps;
  const counters = {
    requests: 0,
    samples: 0,
    histograms: 0,
    exemplars: 0,
    written: 0,
    refused: 0,
    notStored: 0,
    held: 0,
    duplicates: 0,
    overloaded: 0,
  };
  let inFlight = 0;
  let receiving = 0;
  let buffered = 0;
  const overloaded = (message: string) => {
    counters.overloaded++;
    const error = new AppError(503, 'overloaded', `${message}; retry later`);
    error.retryAfterS = RETRY_AFTER_OVERLOADED_S;
    return error;
  };
  const slot = (release: () => void) => {
    let released = false;
    return () => {
      if (!released) release();
      released = true;
    };
  };

  /**
   * 1.0 metadata comes apart from the samples (Prometheus sends it in requests of its own,
   * storage/remote MetadataWatcher): what a request carries is kept for the scope's later
   * requests, and the families of a request that carries none are read by what was kept.
   * The request's own metadata wins over what is kept.
   */
  /**
   * Kept metadata by scope, then family, as last read or written here (null: none kept). A
   * scope's version counts what was written to it: a label set's memo that none of its
   * families has metadata (LabelSet.bare) holds while the version it was made at does.
   */
  interface Kept {
    families: Map<string, { metadata: FamilyMetadata | null; until: number }>;
    version: number;
  }
  const kept = new Map<string, Kept>();
  let keptSize = 0;
  const keptOf = (scope: string) => {
    let k = kept.get(scope);
    if (!k) {
      k = { families: new Map(), version: 0 };
      kept.set(scope, k);
    }
    return k;
  };
  const remember = (
    scope: string,
    family: string,
    metadata: FamilyMetadata | null,
    until: number,
  ) => {
    if (keptSize >= CACHE_LIMIT) {
      kept.clear();
      keptSize = 0;
    }
    const k = keptOf(scope);
    if (!k.families.has(family)) keptSize++;
    k.families.set(family, { metadata, until });
    k.version++;
  };

  /**
   * 1.0 metadata comes apart from the samples (Prometheus sends it in requests of its own,
   * storage/remote MetadataWatcher): what a request carries is kept for the scope's later
   * requests, and the families of a request that carries none are read by what was kept
   * (from memory when read or written here within METADATA_TTL_MS). The request's own
   * metadata wins over what is kept.
   */
  async function withKeptMetadata(
    request: WireRequest,
    sets: LabelSet[],
    scope: WriteScope,
  ): Promise<void> {
    const key = scope.projectId ?? '';
    const now = Date.now();
    if (request.metadata.size > 0) {
      const families = new Map<string, FamilyMetadata>();
      for (const [family, m] of request.metadata) {
        families.set(family, { type: m.type, help: m.help ?? '', unit: m.unit });
      }
      await metadata.save(key, families);
      for (const [family, m] of families) {
        remember(key, family, m, now + METADATA_TTL_MS);
      }
    }
    const wanted = new Set<string>();
    const k = keptOf(key);
    const known = k.families;
    const mark = newMark();
    let lastSet: LabelSet | undefined;
    for (const set of sets) {
      // Series of one label set in a row (a series' samples sent apart) are looked at once.
      if (set === lastSet) continue;
      lastSet = set;
      // None of its families had metadata when last looked at, and nothing was kept since.
      const bare = set.bare;
      if (bare !== null && bare.kept === k && bare.version === k.version && bare.until > now) {
        continue;
      }
      let until = Number.POSITIVE_INFINITY;
      for (const f of set.families) {
        const family = f.name;
        const hit = known.get(family);
        if (hit && hit.until > now && hit.metadata === null) {
          if (hit.until < until) until = hit.until;
        } else until = 0;
        if (f.mark === mark) continue;
        f.mark = mark;
        if (request.metadata.size > 0 && request.metadata.has(family)) continue;
        if (hit && hit.until > now) {
          if (hit.metadata) request.metadata.set(family, hit.metadata);
        } else wanted.add(family);
      }
      set.bare = until > now ? { kept: k, version: k.version, until } : null;
    }
    if (wanted.size === 0) return;
    const found = await metadata.of(key, [...wanted]);
    for (const family of wanted) {
      const m = found.get(family) ?? null;
      remember(key, family, m, now + METADATA_TTL_MS);
      if (m) request.metadata.set(family, m);
    }
  }

  return {
    counters,
    histogramPartsCounters: histogramParts.counters,
    /** A slot for a body to arrive in, or a 503 when as many are arriving as may. */
    admitBody(): () => void {
      if (receiving >= maxReceiving) {
        throw overloaded(`${maxReceiving} remote-write requests are arriving already`);
      }
      receiving++;
      return slot(() => receiving--);
    },
    /** Holds `bytes` more of the bodies in memory, or a 503 past the bound. */
    buffer(bytes: number): void {
      if (buffered + bytes > maxBufferedBytes) {
        throw overloaded(
          `the server holds ${Math.round(buffered / 1048576)} MiB of remote-write requests already`,
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
          `${maxInFlight} remote-write requests are in progress already (MESHBENCH_MAX_CONCURRENT_OTLP)`,
        );
      }
      inFlight++;
      return slot(() => inFlight--);
    },

    /**
     * Decompresses, decodes and stores one request in runs of `scope`. A body that cannot
     * be read is a 400 (413 past `maxBytes` decompressed) and stores nothing.
     */
    async write(
      compressed: Buffer,
      version: RemoteWriteVersion,
      scope: WriteScope,
      maxBytes: number,
    ): Promise<RemoteWriteResult> {
      counters.requests++;
      const length = snappyLength(compressed);
      if (!Number.isFinite(length)) {
        throw new AppError(400, 'malformed_body', 'the body is not a snappy block (no length)');
      }
      if (length > maxBytes) {
        throw new AppError(
          413,
          'body_too_large',
          `the body decompresses to ${length} bytes, over MESHBENCH_OTLP_MAX_BYTES (${maxBytes})`,
        );
      }
      let body: Buffer;
      try {
        body = snappy.uncompressSync(compressed, { asBuffer: true }) as Buffer;
      } catch (error) {
        throw new AppError(
          400,
          'malformed_body',
          `the body is not snappy block-compressed: ${(error as Error).message}`,
        );
      }
      let mapped: ReturnType<typeof mapRemoteWrite>;
      try {
        const request = version === 2 ? decodeRequestV2(body) : decodeWriteRequestV1(body);
        // Each label set looked at once, for the metadata, the histogram parts and the mapping.
        const sets = labelSetsOf(request);
        if (version === 1) await withKeptMetadata(request, sets, scope);
        mapped = mapRemoteWrite(request, await histogramParts.context(request, sets, scope), sets);
      } catch (error) {
        if (error instanceof RemoteWriteDecodeError) {
          const message =
            version === 2 ? 'io.prometheus.write.v2.Request' : 'prometheus.WriteRequest';
          throw new AppError(400, 'malformed_body', `the body is no ${message}: ${error.message}`);
        }
        throw error;
      }
      counters.samples += mapped.total.samples;
      counters.histograms += mapped.total.histograms;
      counters.exemplars += mapped.total.exemplars;
      counters.notStored += mapped.notStored;

      // Parts of histogram points split across requests: merged with what came before, and
      // the points now complete stored with the request's records.
      const assembled = await histogramParts.merge(mapped.parts, scope);
      const records =
        assembled.records.length > 0 ? [...mapped.records, ...assembled.records] : mapped.records;
      const heldOf =
        assembled.records.length > 0 ? [...mapped.held, ...assembled.held] : mapped.held;
      const result = await ingest.store(records, scope);
      await assembled.stored();
      counters.held += result.held;
      counters.duplicates += result.duplicates + assembled.duplicates;
      await histogramParts.sweep();

      // Written: everything sent, less what the mapping and the store refused.
      const refused = new Map(mapped.refused);
      for (const [why, h] of assembled.refused) {
        const known = refused.get(why);
        if (known) addHeld(known, h);
        else refused.set(why, { ...h });
      }
      const notWritten: Held = { samples: 0, histograms: 0, exemplars: 0 };
      for (const h of refused.values()) addHeld(notWritten, h);
      if (result.refusedRecords.size > 0) {
        const byRecord = new Map<MetricRecord, Held>();
        records.forEach((r, i) => {
          byRecord.set(r, heldOf[i] as Held);
        });
        for (const [r, why] of result.refusedRecords) {
          const h = byRecord.get(r);
          if (!h) continue;
          addHeld(notWritten, h);
          const known = refused.get(why);
          if (known) addHeld(known, h);
          else refused.set(why, { ...h });
        }
      }
      const written: Held = {
        samples: mapped.total.samples - notWritten.samples,
        histograms: mapped.total.histograms - notWritten.histograms,
        exemplars: mapped.total.exemplars - notWritten.exemplars,
      };
      counters.written += written.samples + written.histograms + written.exemplars;
      counters.refused += notWritten.samples + notWritten.histograms + notWritten.exemplars;
      const notes = [
        ...(result.held > 0 ? [`${result.held} point(s) matched no run yet: ${HELD_NOTE}`] : []),
        ...(result.duplicates + assembled.duplicates > 0
          ? [
              `${result.duplicates + assembled.duplicates} point(s) were stored before (a retried request): stored once`,
            ]
          : []),
      ];
      return {
        written,
        refused: refused.size > 0 ? refusalText(refused) : '',
        notes: notes.join('; '),
      };
    },
  };
}
export type PrometheusWriteService = ReturnType<typeof prometheusWriteService>;
