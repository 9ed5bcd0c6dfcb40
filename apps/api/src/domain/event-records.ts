// The records decoded probe events become on their way to storage, shared by the decoders
// (ingest/events) that make them, the repositories that store and load them, and the export
// that reads them back: data shapes only, so that no layer imports another's to name them.

/** An incident as stored: its times as Postgres reads them. */
export interface DecodedIncident {
  kind: string;
  node: string | undefined;
  proxy: string | undefined;
  from: string;
  to: string | undefined;
  attrs: Record<string, unknown> | undefined;
}

/** A lifecycle event as stored: its time as Postgres reads it. */
export interface DecodedLifecycle {
  phase: string;
  entity: string;
  node: string | undefined;
  at: string;
  attrs: Record<string, unknown> | undefined;
}

/** A clock report as stored: node minus reference, microseconds, at on the reference clock. */
export interface DecodedClock {
  node: string;
  atUs: number;
  offsetUs: number;
  errorUs: number;
}

/**
 * Where observations go as they are read, one call each, values as they are decoded: no
 * object per observation on the way.
 */
export interface ObservationSink {
  /**
   * The change the next observations are of, as UTF-8, and their stage (UTF-8; null: none
   * given, which is `applied`).
   */
  useChange(change: Uint8Array, stage: Uint8Array | null): void;
  /**
   * An observation whose texts are bytes of `b` (printable ASCII, so UTF-8 that needs no
   * escaping): [start, end) each, start -1 for an absent node or cause.
   */
  observationBytes(
    b: Uint8Array,
    proxyStart: number,
    proxyEnd: number,
    nodeStart: number,
    nodeEnd: number,
    atUs: number,
    causeStart: number,
    causeEnd: number,
  ): void;
  observation(
    proxy: string,
    node: string | undefined,
    atUs: number,
    cause: string | undefined,
    attrs: Record<string, unknown> | undefined,
  ): void;
}

/** A proxy's first observation of the change at one stage. Rows of a proxy are adjacent. */
export interface ProxyStageRow {
  proxy: string;
  node: string | null;
  stage: string;
  atUs: number;
}
