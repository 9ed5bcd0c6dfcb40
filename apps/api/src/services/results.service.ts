// The load-results use case: a runner's result file in, normalized points out.
import { createHash } from 'node:crypto';
import type {
  ImportResultsResponse,
  LoadResult,
  LoadStages,
  ResultFormat,
  StoredLoadResult,
} from '@meshbench/schema';
import { withRequestedPercentiles } from '../domain/bucket-percentiles.ts';
import { decodeHdr } from '../domain/hdr.ts';
import { type LoadStepSide, stepHistograms } from '../domain/load-gate.ts';
import {
  buildStages,
  type GeneratorPoint,
  HdrMerger,
  mergeSteps,
  stagesOf,
  stepKey,
  unitOf,
} from '../domain/load-steps.ts';
import { AppError, notFound } from '../errors.ts';
import {
  checkedResults,
  decodeK6NdjsonChunks,
  decodeResultFile,
  decodeSampleChunks,
  INTERVAL_FORMATS,
  intervalResultRow,
  k6IntervalResults,
  LOCUST_STEP_KEYS,
  ResultFileError,
  type ResultFileProblem,
  type SampleFormat,
  type StepDefaults,
} from '../ingest/results/index.ts';
import { STORED_PERCENTILES } from '../ingest/results/interval-results.ts';
import { emptyResult } from '../ingest/results/values.ts';
import { findBadValue } from '../ingest/stored-text.ts';
import { formatTimestampUs } from '../ingest/timestamps.ts';
import type { ResultsRepository, ResultUpload } from '../repositories/results.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';
import { fairSlots } from './fair-slots.ts';
import type { UploadCounts } from './upload-counts.ts';

/**
 * Unreadable files are 400, readable ones that do not fit are 422, unknown kinds 415, files
 * past a size limit of their kind 413.
 */
const STATUS: Record<ResultFileProblem, number> = {
  empty: 400,
  invalid_utf8: 400,
  invalid_json: 400,
  invalid_histogram: 400,
  /** A raw-sample line that does not read as its format's (a cell not a number...). */
  invalid_line: 400,
  truncated: 400,
  non_finite: 400,
  undetectable: 415,
  format_mismatch: 422,
  invalid_value: 422,
  no_results: 422,
  too_large: 413,
  too_complex: 422,
};

/** A streamed upload's identity: its key, and the SHA-256 of its body as sent (known once read). */
export interface StreamIdentity {
  idempotencyKey?: string | undefined;
  digest: () => string;
}

export interface ResultsServiceDeps {
  runs: RunsRepository;
  results: ResultsRepository;
  /** Where files stored are counted (rejections: by the route). */
  uploads: UploadCounts;
  /** Files decoded and stored at once; past it 503 (load shedding). */
  maxConcurrentUploads?: number;
  /** A project's share of those while another project sends files too. */
  maxConcurrentUploadsPerProject?: number;
}

/** What the service's steps share: its repositories, its counts and its upload slots. */
interface ResultsContext {
  runs: RunsRepository;
  results: ResultsRepository;
  uploads: UploadCounts;
  /** `work` holding a slot of the run's project. */
  inSlot: <T>(projectId: string, work: () => Promise<T>) => Promise<T>;
}

type Decoded = Awaited<ReturnType<typeof decodeResultFile>>;

/** The service's context: its repositories and counts, and slots fair between projects. */
function resultsContext(deps: ResultsServiceDeps): ResultsContext {
  const slots = fairSlots({
    max: deps.maxConcurrentUploads ?? Number.POSITIVE_INFINITY,
    perProject: deps.maxConcurrentUploadsPerProject ?? Number.POSITIVE_INFINITY,
    what: 'result files',
    one: 'the file',
    maxSetting: 'MESHBENCH_MAX_CONCURRENT_RESULT_UPLOADS',
    perProjectSetting: 'MESHBENCH_MAX_CONCURRENT_RESULT_UPLOADS_PER_PROJECT',
  });
  return {
    runs: deps.runs,
    results: deps.results,
    uploads: deps.uploads,
    inSlot: async (projectId, work) => {
      const release = slots.admit(projectId);
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
}

export function resultsService(deps: ResultsServiceDeps) {
  const ctx = resultsContext(deps);
  const service = {
    /**
     * Removes interval-log uploads left staged by a process stopped while it stored them
     * (staged more than `olderThanMs` ago); how many.
     */
    discardStagedUploads(olderThanMs: number): Promise<number> {
      return ctx.results.discardStagedUploads(olderThanMs);
    },

    import: (
      runRef: string,
      text: string,
      format: ResultFormat | 'auto',
      step: StepDefaults = {},
      /** How a repeat of it is recognised: its key, and the SHA-256 of its bytes (of `text`'s UTF-8 when not given). */
      identity: { idempotencyKey?: string | undefined; bodySha256?: string } = {},
    ): Promise<ImportResultsResponse> => importFile(ctx, runRef, text, format, step, identity),

    /**
     * A k6 --out json stream read as it arrives (never whole in memory), stored as
     * import() stores the same bytes: only once the last line is decoded, so a stream that
     * fails or stops part way stores nothing. The run is looked up before the first byte.
     */
    importK6Stream(
      runRef: string,
      chunks: AsyncIterable<Uint8Array>,
      step: StepDefaults,
      limits: { maxLineBytes: number; lineSetting?: string },
      identity: StreamIdentity,
    ): Promise<ImportResultsResponse> {
      return storeStream(ctx, runRef, chunks, step, identity, true, async () =>
        k6IntervalResults(await decodeK6NdjsonChunks(chunks, limits), step),
      );
    },

    /**
     * A raw-sample file (hey's CSV...) read as it arrives, as importK6Stream reads k6's: its
     * aggregator keeps counts, never the samples, and the point is stored only once the last
     * line is decoded, so a stream that fails or stops part way stores nothing.
     */
    importSampleStream(
      runRef: string,
      format: SampleFormat,
      chunks: AsyncIterable<Uint8Array>,
      step: StepDefaults,
      limits: { maxLineBytes: number; lineSetting?: string },
      identity: StreamIdentity,
    ): Promise<ImportResultsResponse> {
      return storeStream(ctx, runRef, chunks, step, identity, false, async () =>
        checkedResults(format, await decodeSampleChunks(format, chunks, limits)),
      );
    },

    /**
     * A run's results; `percentiles` the file lacks are computed from its histogram. After
     * the stored points, one merged row per step that has per-generator points.
     */
    list: (runRef: string, percentiles: number[] = []): Promise<StoredLoadResult[]> =>
      listResults(ctx, runRef, percentiles),

    /**
     * A run's load steps as a gate reads them: each step's own row (one without a generator)
     * or its generators' merged row, with P50 ... P99.9 and its HdrHistogram where it has one.
     */
    gateSteps: (
      runRef: string,
      /** false: the steps' numbers only (a noise floor reads many runs' percentiles). */
      withHistograms = true,
    ): Promise<{ side: LoadStepSide; stored: StoredLoadResult }[]> =>
      gateSteps(ctx, runRef, withHistograms),

    /**
     * Rebuilds the run's kept slots when they do not hold every interval (intervals kept
     * before slots were): a step of finishing the run. True when it rebuilt them.
     */
    async keepSlots(runId: string): Promise<boolean> {
      if ((await ctx.results.slotsOfRun(runId, [])) !== null) return false;
      await ctx.results.rebuildSlots(runId);
      return true;
    },

    /** A run's interval data over time: merged per slot, and one summary per step. */
    stages: (runRef: string, percentiles: number[]): Promise<LoadStages> =>
      stagesOfRun(ctx, runRef, percentiles),
  };
  return service;
}

async function runOf(ctx: ResultsContext, runRef: string) {
  const run = await ctx.runs.find(runRef);
  if (!run) throw notFound(`run "${runRef}"`);
  return run;
}

/** A decoder's ResultFileError as the AppError it answers. */
async function decoding<T>(decode: () => Promise<T>): Promise<T> {
  try {
    return await decode();
  } catch (error) {
    if (error instanceof ResultFileError) {
      throw new AppError(STATUS[error.problem], error.problem, error.message, {
        ...(error.line !== undefined ? { line: error.line } : {}),
        ...(error.field !== undefined ? { field: error.field } : {}),
      });
    }
    throw error;
  }
}

/**
 * The answer to a file stored before (a retry, or the same file again): its first answer,
 * marked duplicate; a 422 when the Idempotency-Key was used for another file.
 */
function repeat(
  ctx: ResultsContext,
  earlier: ResultUpload,
  upload: UploadIdentity,
  bodySha256: string | null,
): ImportResultsResponse {
  const sameKey =
    upload.idempotencyKey !== undefined && earlier.idempotencyKey === upload.idempotencyKey;
  if (
    sameKey &&
    ((bodySha256 !== null && earlier.bodySha256 !== bodySha256) ||
      earlier.step !== stepText(upload.step))
  ) {
    throw new AppError(
      422,
      'idempotency_key_reused',
      `Idempotency-Key "${upload.idempotencyKey}" was used for a different result file (or other step parameters) on this run`,
    );
  }
  ctx.uploads.countDuplicate();
  return { ...(earlier.answer as Omit<ImportResultsResponse, 'duplicate'>), duplicate: true };
}

/** A whole file (its text) into the run: import() of the service. */
async function importFile(
  ctx: ResultsContext,
  runRef: string,
  text: string,
  format: ResultFormat | 'auto',
  step: StepDefaults,
  identity: { idempotencyKey?: string | undefined; bodySha256?: string },
): Promise<ImportResultsResponse> {
  const run = await runOf(ctx, runRef);
  const bodySha256 = identity.bodySha256 ?? sha256(text);
  const upload = { idempotencyKey: identity.idempotencyKey, step };
  const earlier = await ctx.results.findUpload(
    run.id,
    upload.idempotencyKey,
    bodySha256,
    stepText(step),
  );
  if (earlier) return repeat(ctx, earlier, upload, bodySha256);
  return ctx.inSlot(run.projectId, async () => {
    const decoded = await decoding(() => decodeResultFile(text, format, step));
    return store(ctx, run, decoded, step, { ...upload, bodySha256 });
  });
}

/**
 * A file read as it arrives, into the run: a retry under a stored Idempotency-Key is only
 * read (to hash it) and answered as before; else `decode` reads the stream, and its points
 * are stored unless the same bytes (by their SHA-256, known once read) were stored before.
 */
async function storeStream(
  ctx: ResultsContext,
  runRef: string,
  chunks: AsyncIterable<Uint8Array>,
  step: StepDefaults,
  identity: StreamIdentity,
  intervals: boolean,
  decode: () => Promise<Omit<Decoded, 'intervals'>>,
): Promise<ImportResultsResponse> {
  const run = await runOf(ctx, runRef);
  return ctx.inSlot(run.projectId, () =>
    storeRunStream(ctx, run, chunks, step, identity, intervals, decode),
  );
}

/** storeStream once the run is found and a slot taken. */
async function storeRunStream(
  ctx: ResultsContext,
  run: { id: string; status: string },
  chunks: AsyncIterable<Uint8Array>,
  step: StepDefaults,
  identity: StreamIdentity,
  intervals: boolean,
  decode: () => Promise<Omit<Decoded, 'intervals'>>,
): Promise<ImportResultsResponse> {
  const upload = { idempotencyKey: identity.idempotencyKey, step };
  if (upload.idempotencyKey !== undefined) {
    const earlier = await ctx.results.findUpload(
      run.id,
      upload.idempotencyKey,
      null,
      stepText(step),
    );
    if (earlier) {
      for await (const _chunk of chunks) {
        // only hashed (by the route, as they arrive)
      }
      return repeat(ctx, earlier, upload, identity.digest());
    }
  }
  const decoded = await decoding(decode);
  const bodySha256 = identity.digest();
  const earlier = await ctx.results.findUpload(
    run.id,
    upload.idempotencyKey,
    bodySha256,
    stepText(step),
  );
  if (earlier) return repeat(ctx, earlier, upload, bodySha256);
  return store(ctx, run, { ...decoded, intervals } as Decoded, step, { ...upload, bodySha256 });
}

/** A whole decoded file into the run, all its points or none. */
async function store(
  ctx: ResultsContext,
  run: { id: string; status: string },
  decoded: Decoded,
  step: StepDefaults,
  upload: UploadIdentity & { bodySha256: string },
): Promise<ImportResultsResponse> {
  const given = Object.entries(step)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k)
    // A Locust file does not say its mode, users or target rate: the upload may (decoder).
    .filter(
      (k) => decoded.format !== 'locust' || !(LOCUST_STEP_KEYS as readonly string[]).includes(k),
    );
  if (!decoded.intervals && given.length > 0) {
    throw new AppError(
      400,
      'invalid_query',
      `${given.join(', ')} apply to interval formats (${[...INTERVAL_FORMATS].join(', ')}) only; a ${decoded.format} file names its own points`,
      { field: given[0] as string },
    );
  }
  const points = decoded.intervals ? decoded.results.map(intervalResultRow) : null;
  const loadResults = points ? points.map((p) => p.result) : decoded.results;
  // What no column can hold as sent (NUL, lone surrogates, 1e400) is refused by name.
  const bad = findBadValue(loadResults);
  if (bad) {
    const [index, ...field] = bad.path.split('.');
    const at = field.join('.');
    throw new AppError(
      422,
      'invalid_value',
      `result ${Number(index) + 1}: ${at ? `"${at}" ` : ''}${bad.reason}`,
      at ? { field: at } : {},
    );
  }
  const truncated = 'truncated' in decoded && decoded.truncated ? decoded.truncated : null;
  const answer: Omit<ImportResultsResponse, 'duplicate'> = {
    format: decoded.format,
    imported: loadResults.length,
    unmapped: decoded.unmapped,
    truncated,
    notes: notesOf(loadResults as LoadResult[], truncated),
  };
  const record: ResultUpload = {
    idempotencyKey: upload.idempotencyKey ?? null,
    bodySha256: upload.bodySha256,
    step: stepText(upload.step),
    answer,
  };
  const imported = points
    ? await ctx.results.insertIntervalPoints(run.id, decoded.format, points, record)
    : await ctx.results.insert(run.id, decoded.format, loadResults as LoadResult[], record);
  if (imported === null) {
    // Stored meanwhile by a concurrent upload of the same file (or key).
    const earlier = await ctx.results.findUpload(
      run.id,
      upload.idempotencyKey,
      upload.bodySha256,
      record.step,
    );
    if (earlier) return repeat(ctx, earlier, upload, upload.bodySha256);
    throw new AppError(
      503,
      'conflict',
      'a concurrent upload of this file did not finish; send it again',
    );
  }
  ctx.uploads.countStored(imported);
  return { ...answer, imported, duplicate: false };
}

/** The service's list(): stored points, then one merged row per step of several generators. */
async function listResults(
  ctx: ResultsContext,
  runRef: string,
  percentiles: number[],
): Promise<StoredLoadResult[]> {
  const run = await runOf(ctx, runRef);
  const [rows, histograms] = await Promise.all([
    ctx.results.ofRun(run.id),
    ctx.results.histogramsOfRun(run.id),
  ]);
  const hdrOf = new Map(histograms.map((h) => [h.id, h.hdr]));
  const stored: StoredLoadResult[] = rows.map(
    ({ runId: _runId, createdAt: _createdAt, startedAtUs, ...r }) => {
      const hdr = hdrOf.get(r.id);
      let stated = r.percentiles;
      const missing = percentiles.filter((p) => !stated.some((s) => s.p === p));
      if (hdr && missing.length > 0) {
        const merger = new HdrMerger(unitOf(r.labels));
        merger.add(decodeHdr(hdr), unitOf(r.labels));
        stated = [...stated, ...merger.percentileValues(missing)].sort((a, b) => a.p - b.p);
      }
      return {
        ...r,
        format: r.format as ResultFormat,
        percentiles: withRequestedPercentiles(stated, r.histogram, percentiles),
        startedAt: startedAtUs === null ? null : formatTimestampUs(startedAtUs),
        merged: null,
      };
    },
  );
  const startOf = new Map(rows.map((r) => [r.id, r.startedAtUs]));
  const perGenerator = stored.filter((r) => r.generator !== null);
  const merged = mergeSteps(
    perGenerator.map((r) =>
      pointOf(r, hdrOf.get(r.id as number) ?? null, startOf.get(r.id as number) ?? null),
    ),
    [...new Set([...STORED_PERCENTILES, ...percentiles])].sort((a, b) => a - b),
  ).map(
    (m): StoredLoadResult => ({
      ...emptyResult(),
      id: null,
      format: (m.points[0] as GeneratorPoint & { format: ResultFormat }).format,
      generator: null,
      mode: m.mode,
      connections: m.connections,
      targetRps: m.targetRps,
      achievedRps: m.achievedRps,
      durationMs: m.durationMs,
      requests: m.requests,
      errors: m.errors,
      errorsByCode: m.errorsByCode,
      percentiles: m.percentiles,
      minMs: m.minMs,
      meanMs: m.meanMs,
      maxMs: m.maxMs,
      stdDevMs: m.stdDevMs,
      startedAt: m.startedAt,
      labels: m.labels,
      merged: { generators: m.generators },
    }),
  );
  return [...stored, ...merged];
}

/** The service's gateSteps(). */
async function gateSteps(
  ctx: ResultsContext,
  runRef: string,
  withHistograms: boolean,
): Promise<{ side: LoadStepSide; stored: StoredLoadResult }[]> {
  const run = await runOf(ctx, runRef);
  const [listed, rows, histograms] = await Promise.all([
    listResults(ctx, run.id, [...GATE_PERCENTILES]),
    withHistograms ? ctx.results.ofRun(run.id) : [],
    withHistograms ? ctx.results.histogramsOfRun(run.id) : [],
  ]);
  const { whole, merged } = stepHistograms(rows, new Map(histograms.map((h) => [h.id, h.hdr])));
  return listed
    .filter((r) => r.generator === null)
    .map((r) => ({
      stored: r,
      side: {
        mode: r.mode,
        connections: r.connections,
        targetRps: r.targetRps,
        config: r.labels.config ?? null,
        achievedRps: r.achievedRps,
        requests: r.requests,
        errors: r.errors,
        percentiles: r.percentiles,
        histogram: (r.id === null ? merged.get(stepKey(r)) : whole.get(r.id)) ?? null,
        format: r.format,
      },
    }));
}

/** The service's stages(). */
async function stagesOfRun(
  ctx: ResultsContext,
  runRef: string,
  percentiles: number[],
): Promise<LoadStages> {
  const run = await runOf(ctx, runRef);
  // Slots are kept at ingest; a run whose intervals predate them (or an upload landing
  // between the two reads) is merged from its intervals here, and nothing is stored: a
  // read writes nothing (the run's finish rebuilds its slots).
  const kept = await ctx.results.slotsOfRun(run.id, percentiles);
  if (kept?.slots.length === 0) return { intervalMs: 0, series: [], stages: [] };
  const [rows, histograms] = await Promise.all([
    ctx.results.ofRun(run.id),
    ctx.results.histogramsOfRun(run.id),
  ]);
  const hdrOf = new Map(histograms.map((h) => [h.id, h.hdr]));
  const points = rows
    .filter((r) => hdrOf.has(r.id))
    .map((r) =>
      pointOf(
        { ...r, startedAt: null, format: r.format as ResultFormat },
        hdrOf.get(r.id) ?? null,
        r.startedAtUs,
      ),
    );
  if (kept === null)
    return buildStages(points, await ctx.results.intervalsOfRun(run.id), percentiles);
  return stagesOf(points, kept.spans, kept.grid, kept.slots, percentiles);
}
/** A stored row as merging reads it (the format kept for the merged row). */
function pointOf(
  r: Omit<StoredLoadResult, 'id' | 'merged' | 'percentiles'> & { id: number | null },
  hdr: Uint8Array | null,
  /** The point's start as stored, epoch us. */
  startedAtUs: number | null,
): GeneratorPoint & { format: ResultFormat } {
  return {
    startedAtMs: startedAtUs === null ? null : startedAtUs / 1000,
    id: r.id as number,
    format: r.format,
    generator: r.generator,
    mode: r.mode,
    connections: r.connections,
    targetRps: r.targetRps,
    achievedRps: r.achievedRps,
    durationMs: r.durationMs,
    requests: r.requests,
    errors: r.errors,
    errorsByCode: r.errorsByCode,
    minMs: r.minMs,
    meanMs: r.meanMs,
    maxMs: r.maxMs,
    stdDevMs: r.stdDevMs,
    labels: r.labels,
    startedAt: r.startedAt,
    hdr,
  };
}
export type ResultsService = ReturnType<typeof resultsService>;

/** What an upload is recognised by, besides its bytes. */
interface UploadIdentity {
  idempotencyKey: string | undefined;
  step: StepDefaults;
}

/** The step parameters as one canonical text (the same parameters, the same text). */
function stepText(step: StepDefaults): string {
  const entries = Object.entries(step)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(Object.fromEntries(entries));
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * What the stored points say that their numbers alone do not: a point no request was sent
 * for, the runner's crossed thresholds, where a stream was cut.
 */
export function notesOf(
  results: Pick<LoadResult, 'requests' | 'thresholds' | 'labels' | 'mode'>[],
  truncated: { line: number; byte: number } | null,
): string[] {
  const notes: string[] = [];
  results.forEach((r, i) => {
    const name = `result ${i + 1} (${r.labels.label ?? r.labels.scenario ?? r.mode})`;
    if (r.requests === 0) {
      notes.push(`${name}: no request was sent (0 requests); its latencies are left empty`);
    }
    const thresholds = r.thresholds ?? [];
    const crossed = thresholds.filter((t) => !t.ok);
    if (crossed.length > 0) {
      notes.push(
        `${name}: ${crossed.length} of ${thresholds.length} thresholds crossed: ${crossed
          .map((t) => `${t.metric} ${t.threshold}`)
          .join(', ')}`,
      );
    } else if (thresholds.length > 0) {
      notes.push(`${name}: all ${thresholds.length} thresholds held`);
    }
  });
  if (truncated) {
    notes.push(
      `the stream ends inside line ${truncated.line} (from byte ${truncated.byte}): cut off while it was written, that line is left out and the ${truncated.line - 1} lines before it are stored`,
    );
  }
  return notes;
}

/** The percentiles a data-plane gate rule can name (load.p50 ... load.p99.9). */
const GATE_PERCENTILES = [50, 90, 99, 99.9] as const;
