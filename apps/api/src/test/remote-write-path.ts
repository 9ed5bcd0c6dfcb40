// What bench/prometheus-decode times: a remote-write request's path through this process
// without HTTP or Postgres (decompress, decode, label sets, metadata, histogram parts,
// mapping, series identity and COPY rows), wired as the app wires it, over stub repositories.
export { copyChunks } from '../repositories/metrics.repository.ts';
export { metricsIngestService } from '../services/metrics-ingest.service.ts';
export { histogramPartsAssembler } from '../services/prometheus-histogram-parts.ts';
export { prometheusWriteService } from '../services/prometheus-write.service.ts';

import snappy from 'snappy';

/** A snappy block decompressed, as the service does it (for the bench's baseline). */
export const uncompress = (body: Buffer): Buffer =>
  snappy.uncompressSync(body, { asBuffer: true }) as Buffer;
