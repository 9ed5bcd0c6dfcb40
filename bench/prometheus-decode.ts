// bench/prometheus-decode: the CPU a Remote-Write 1.0 request costs the API without HTTP or
// Postgres: service.write as the app wires it (decompress, decode, label sets, metadata,
// histogram parts, mapping, series identity, COPY rows built and dropped), over stub
// repositories, on the bodies bench/prometheus-write sends. Beside it, in the same run and
// interleaved, the baseline: the same bodies decompressed and decoded by protobufjs with the
// upstream proto (a generic decoder: objects out, nothing mapped). CPU time, medians.
// Usage: tsx prometheus-decode.ts [--requests N] [--rounds R]
import { fileURLToPath } from 'node:url';
import {
  copyChunks,
  histogramPartsAssembler,
  metricsIngestService,
  prometheusWriteService,
  uncompress,
} from '@meshbench/api/remote-write-path';
import protobuf from 'protobufjs';
import { body, PER_REQUEST } from './lib/remote-write-bodies.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const REQUESTS = arg('requests', 200);
const ROUNDS = arg('rounds', 7);
const RUN_ID = '0192f1a2-3b4c-7d5e-8f60-123456789abc';

const WriteRequest = protobuf
  .loadSync(
    fileURLToPath(new URL('../apps/api/src/ingest/prometheus/remote_write.proto', import.meta.url)),
  )
  .lookupType('prometheus.WriteRequest');

// Stubs answer as Postgres would for a run that exists and series created on first sight.
let copied = 0;
const run = {
  id: RUN_ID,
  slug: 'bench',
  projectId: 'p',
  environment: null,
  startedMs: 0,
  finishedMs: null,
  topology: {},
};
const metrics = {
  async ensureSeries(list: { runId: string; keyHash: string }[]) {
    return new Map(list.map((s, i) => [`${s.runId}|${s.keyHash}`, String(1000 + i)]));
  },
  async appendRows(rows: Parameters<typeof copyChunks>[0]) {
    for (const chunk of copyChunks(rows)) copied += chunk.length;
    return { stored: rows.values.length, duplicates: 0 };
  },
  async holdPoints() {},
};
const ingest = metricsIngestService({
  // biome-ignore lint/suspicious/noExplicitAny: a stub of the two methods the path calls
  metrics: metrics as any,
  runs: { windowsByRef: async () => [run], windowsIn: async () => [] },
  replica: 'bench',
  holdMs: 0,
});
const parts = {
  // Every point arrives whole after the first request: merged parts complete at once.
  merge: async (list: object[]) => list.map((p) => ({ ...p, state: 'pending', les: null })),
  knownLes: async () => new Map(),
  knownFamilies: async () => new Set<string>(),
  mark: async () => {},
  stale: async () => [],
  prune: async () => 0,
};
const service = prometheusWriteService({
  ingest,
  metadata: { save: async () => {}, of: async () => new Map() },
  // biome-ignore lint/suspicious/noExplicitAny: a stub of the repository's methods
  histogramParts: histogramPartsAssembler({ parts: parts as any, ingest, waitMs: 300_000 }),
  maxInFlight: 4,
  maxReceiving: 4,
  maxBufferedBytes: 1 << 30,
});

const cpuMs = async (work: () => Promise<void> | void): Promise<number> => {
  const before = process.cpuUsage();
  await work();
  const d = process.cpuUsage(before);
  return (d.user + d.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main() {
  const t0 = Date.now() - 30_000;
  const bodies = Array.from({ length: REQUESTS }, (_, k) => body(RUN_ID, k, t0));
  const scope = { projectId: null };
  await service.write(bodies[0] as Buffer, 1, scope, 1 << 30); // series and le's first seen
  const path: number[] = [];
  const baseline: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    path.push(
      await cpuMs(async () => {
        for (let k = 1; k < REQUESTS; k++) {
          const out = await service.write(bodies[k] as Buffer, 1, scope, 1 << 30);
          if (out.refused) throw new Error(out.refused);
        }
      }),
    );
    baseline.push(
      await cpuMs(() => {
        for (let k = 1; k < REQUESTS; k++) {
          WriteRequest.decode(uncompress(bodies[k] as Buffer));
        }
      }),
    );
  }
  const n = REQUESTS - 1;
  const pathMs = median(path) / n;
  const baseMs = median(baseline) / n;
  const fmt = (x: number, d = 2) => x.toFixed(d);
  console.log('\nbench/prometheus-decode');
  console.log(
    `  requests                  ${n} of ${PER_REQUEST} samples, ${ROUNDS} rounds (${fmt(copied / 1048576, 0)} MiB of COPY rows built)`,
  );
  console.log(
    `  write path (no HTTP, DB)  ${fmt(pathMs)} ms CPU a request, ${fmt((PER_REQUEST / pathMs) * 1000, 0)} samples/s`,
  );
  console.log(
    `  baseline: protobufjs      ${fmt(baseMs)} ms CPU a request (snappy and protobufjs decode, nothing mapped)`,
  );
  console.log(`  ratio                     ${fmt(pathMs / baseMs)} x the baseline`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
