// The events use case: a batch is decoded, checked and stored whole, or not at all.
import { APPLIED_STAGE, type IngestResult } from '@meshbench/schema';
import {
  type FirstApplications,
  type LatencySet,
  latencySet,
  mergeBatch,
  type ObservedStage,
} from '../domain/first-applications.ts';
import { runSliced } from '../domain/slices.ts';
import { splitBlocks } from '../domain/sorted-latencies.ts';
import { AppError, notFound } from '../errors.ts';
import { peekBody } from '../ingest/body-chunks.ts';
import { BatchAssembler, differingField } from '../ingest/events/batch-assembler.ts';
import { type BatchFormat, yieldToLoop } from '../ingest/events/event-stream.ts';
import { formatTimestampUs } from '../ingest/timestamps.ts';
import type {
  BatchStore,
  EventsRepository,
  Fingerprinted,
  PriorSummary,
  SourceLines,
  SummaryToSave,
} from '../repositories/events.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';
import { fairSlots } from './fair-slots.ts';
import type { UploadCounts } from './upload-counts.ts';

export const LATENCY_BLOCK_SIZE = 1024;

export interface IngestInput {
  body: AsyncIterable<Buffer>;
  format: BatchFormat;
  idempotencyKey?: string | undefined;
  /** SHA-256 of the body as sent, known once `body` is read to its end. */
  digest: () => string;
  /** The lines of a larger input (a source) this batch holds; NDJSON only. */
  lines?: SourceLines | undefined;
  /** Told of bytes the batch keeps in memory while it is read (may refuse them: 503). */
  hold?: ((bytes: number) => void) | undefined;
}

/**
 * Bytes of a batch that must have arrived (or its end) before it takes a batch slot on
 * Postgres: a client that sends its headers and then a byte now and then holds no slot.
 */
export const SLOT_AFTER_BYTES = 64 * 1024;

export { FAIR_SHARE_MEMORY_MS, RETRY_AFTER_OVERLOADED_S } from './fair-slots.ts';

export function ingestService(deps: {
  runs: RunsRepository;
  events: EventsRepository;
  maxBatchBytes: number;
  /** Where batches stored and retried are counted (rejections: by the route). */
  uploads: UploadCounts;
  /** Batches in progress at once; past it a batch is refused with 503 (load shedding). */
  maxConcurrentBatches?: number;
  /**
   * A project's share of the batch slots while another project wants them too (asked for
   * one within FAIR_SHARE_MEMORY_MS); alone, a project may take every slot.
   */
  maxConcurrentBatchesPerProject?: number;
  /**
   * Read and decode the whole batch before its transaction opens (the embedded database:
   * its one connection must not wait for a client's bytes). Otherwise rows stream into
   * COPY as they arrive.
   */
  readBeforeTransaction?: boolean;
  /**
   * With readBeforeTransaction: store a batch's observations ahead of its transaction in
   * bounded pieces, invisible until it commits (the embedded database: its one connection
   * is never held by one long COPY while reads wait). The transaction then holds only the
   * batch's kept state.
   */
  stageObservations?: boolean;
  warn: (error: unknown, message: string) => void;
  debug?: (fields: Record<string, unknown>, message: string) => void;
  /**
   * Told of each batch stored (not a retry), with its first applications by change and
   * stage: what is kept of the run is computed after it.
   */
  afterStored?: (runId: string, observed: ObservedStage[]) => void;
}) {
  const { runs, events, maxBatchBytes, uploads, warn } = deps;
  const debug = deps.debug ?? (() => {});
  const slots = fairSlots({
    max: deps.maxConcurrentBatches ?? Number.POSITIVE_INFINITY,
    perProject: deps.maxConcurrentBatchesPerProject ?? Number.POSITIVE_INFINITY,
    what: 'event batches',
    one: 'the batch',
    maxSetting: 'MESHBENCH_MAX_CONCURRENT_BATCHES',
    perProjectSetting: 'MESHBENCH_MAX_CONCURRENT_BATCHES_PER_PROJECT',
  });
  const { counters } = slots;
  const admit = (projectId: string) => slots.admit(projectId);

  return {
    counters,
    async ingest(runRef: string, input: IngestInput): Promise<IngestResult> {
      const run = await runs.find(runRef);
      if (!run) throw notFound(`run "${runRef}"`);
      const { lines } = input;
      if (lines && input.format !== 'ndjson') {
        throw new AppError(400, 'invalid_request', 'source lines apply to NDJSON batches only', {
          field: 'lines',
        });
      }
      // The slot is taken inside, once the batch's bytes are there (see ingestBatch).
      let release = () => {};
      try {
        let stored: BatchAssembler | undefined;
        const result = await ingestBatch(
          run.id,
          input,
          () => {
            release = admit(run.projectId);
          },
          (batch) => {
            stored = batch;
          },
        );
        if (result.duplicate) uploads.countDuplicate();
        else {
          uploads.countStored(result.accepted);
          deps.afterStored?.(run.id, stored ? observedStages(stored) : []);
        }
        return result;
      } finally {
        release();
      }
    },

    /** Removes the batches left staged by a process stopped while it stored them; how many. */
    async discardStagedBatches(): Promise<number> {
      const left = await events.stagedBatches();
      for (const id of left) await events.discardStaged(id, yieldToLoop);
      // And blocks a batch's summary stopped using, left by a process stopped after its commit.
      await events.dropUnusedBlocks(yieldToLoop);
      return left.length;
    },

    /**
     * Batches of several runs stored in one transaction: all or none (an OTLP logs request
     * whose events go to several runs). Each is read whole before the transaction opens, and
     * the request takes one batch slot (one transaction, one connection). A batch whose key
     * was stored before is acknowledged as a duplicate, the others stored.
     */
    async ingestTogether(
      parts: readonly { runRef: string; input: IngestInput }[],
    ): Promise<IngestResult[]> {
      const found = [];
      for (const { runRef, input } of parts) {
        const run = await runs.find(runRef);
        if (!run) throw notFound(`run "${runRef}"`);
        if (input.lines) {
          throw new AppError(400, 'invalid_request', 'source lines apply to single batches only', {
            field: 'lines',
          });
        }
        found.push(run);
      }
      const started = performance.now();
      const since = () => Math.round(performance.now() - started);
      const prepared: {
        runId: string;
        batchId: number;
        batch: BatchAssembler;
        rows: Uint8Array[];
        input: IngestInput;
      }[] = [];
      for (let i = 0; i < parts.length; i++) {
        const { input } = parts[i] as { input: IngestInput };
        const runId = (found[i] as { id: string }).id;
        const batchId = await events.reserveBatchId();
        const observations = events.observationRows(runId, batchId);
        const batch = new BatchAssembler(observations, 1);
        const rows: Uint8Array[] = [];
        await inPart(i, async () => {
          for await (const chunk of observations.rows(
            batch.read(input.body, input.format, maxBatchBytes),
          )) {
            input.hold?.(chunk.length);
            rows.push(chunk);
          }
        });
        prepared.push({ runId, batchId, batch, rows, input });
      }
      if (prepared.length === 0) return [];
      const release = admit((found[0] as { projectId: string }).projectId);
      try {
        const phases = { readMs: since(), sentMs: 0, copiedMs: 0, summarizedMs: 0 };
        const claims = await events.inBatches(
          prepared.map((p) => ({
            runId: p.runId,
            claim: { batchId: p.batchId, idempotencyKey: p.input.idempotencyKey },
            holds: {
              incidents: p.batch.incidents.length > 0,
              lifecycle: p.batch.lifecycle.length > 0,
            },
          })),
          (i, store) => {
            const p = prepared[i] as (typeof prepared)[0];
            return inPart(i, () => writeBatch(store, p.batch, p.rows, p.input, phases, since));
          },
          (i, earlier) => {
            // Checked in the transaction: a key reused for other events stores nothing at all.
            const p = prepared[i] as (typeof prepared)[0];
            if (p.input.digest() !== earlier.bodySha256) {
              throw new PartFailure(
                i,
                new AppError(
                  422,
                  'idempotency_key_reused',
                  `Idempotency-Key "${p.input.idempotencyKey}" was used for a different batch on run ${p.runId}`,
                ),
              );
            }
          },
        );
        const results = claims.map((claim): IngestResult => {
          if (claim.duplicate) {
            uploads.countDuplicate();
            return { accepted: claim.accepted, duplicate: true };
          }
          uploads.countStored(claim.result);
          return { accepted: claim.result, duplicate: false };
        });
        // As after a single batch: what is kept of each run written is computed after it.
        claims.forEach((c, i) => {
          const p = prepared[i] as (typeof prepared)[0];
          if (!c.duplicate) deps.afterStored?.(p.runId, observedStages(p.batch));
        });
        if (claims.some((c) => !c.duplicate)) {
          debug({ runs: prepared.map((p) => p.runId), ...phases, committedMs: since() }, 'batches');
          events
            .summarizeIndex(prepared.map((p) => p.runId))
            .catch((error) => warn(error, 'summarising the observations index failed'));
        }
        return results;
      } finally {
        release();
      }
    },

    /** The lines of a source already stored on a run (what sending it again may skip). */
    async storedSourceLines(runRef: string, source: string) {
      const run = await runs.find(runRef);
      if (!run) throw notFound(`run "${runRef}"`);
      return { source, lines: await events.storedSourceLines(run.id, source) };
    },
  };

  async function ingestBatch(
    runId: string,
    input: IngestInput,
    takeSlot: () => void,
    /** Told of the batch once stored (not for a retry). */
    stored: (batch: BatchAssembler) => void,
  ): Promise<IngestResult> {
    const { lines } = input;
    let consumed = false;
    // Streaming into COPY (Postgres), the slot is taken once the first SLOT_AFTER_BYTES
    // (or the whole body) have arrived; read whole first (embedded), once it is all read.
    const source = deps.readBeforeTransaction
      ? input.body
      : (await peekBody(input.body, SLOT_AFTER_BYTES)).body;
    async function* read(): AsyncGenerator<Buffer> {
      yield* source;
      consumed = true;
    }
    const body = read();
    if (!deps.readBeforeTransaction) takeSlot();

    const started = performance.now();
    const phases = { readMs: 0, sentMs: 0, copiedMs: 0, summarizedMs: 0 };
    const since = () => Math.round(performance.now() - started);
    const batchId = await events.reserveBatchId();
    const observations = events.observationRows(runId, batchId);
    const batch = new BatchAssembler(observations, lines?.first ?? 1);
    let rows: AsyncIterable<Uint8Array> | Uint8Array[] = observations.rows(
      batch.read(body, input.format, maxBatchBytes),
    );
    if (deps.readBeforeTransaction) {
      const whole: Uint8Array[] = [];
      for await (const chunk of rows) {
        input.hold?.(chunk.length);
        whole.push(chunk);
      }
      rows = whole;
      checkLines(batch, lines);
      phases.readMs = since();
      takeSlot();
    }
    // Staged: the rows go in by pieces now, the sums are made before the transaction opens.
    // A retry under a key already stored is not staged (it stores nothing).
    const staged =
      deps.readBeforeTransaction === true &&
      deps.stageObservations === true &&
      !(input.idempotencyKey && (await events.keyTaken(runId, input.idempotencyKey)));
    let claim: Awaited<ReturnType<typeof events.inBatch<number>>>;
    let kept: StagedKept | undefined;
    try {
      if (staged) {
        await events.stageObservations(runId, batchId, rows as Uint8Array[], yieldToLoop);
        rows = [];
        await prepareApplicationsInSlices(batch, phases, since);
        kept = await stageKept(events, runId, batchId, batch);
      }
      claim = await events.inBatch(
        runId,
        { batchId, idempotencyKey: input.idempotencyKey, lines },
        (store) => writeBatch(store, batch, rows, input, phases, since, kept),
      );
    } catch (error) {
      if (staged) await events.discardStaged(batchId, yieldToLoop);
      throw error;
    }
    if (staged && claim.duplicate) await events.discardStaged(batchId, yieldToLoop);
    if (!claim.duplicate) {
      // The blocks its summaries held before the ones it staged: no read asks for them.
      if (kept && kept.superseded.length > 0)
        await events.dropBlocks(runId, kept.superseded, yieldToLoop);
      // Where a batch's time goes: read and sent, loaded, summarised, committed.
      debug({ run: runId, accepted: claim.result, ...phases, committedMs: since() }, 'batch');
      // After the commit, off the reply's path: the index learns the batch's block ranges.
      // Should it fail, nothing is lost; reads only scan those ranges until the next time.
      events
        .summarizeIndex([runId], yieldToLoop)
        .catch((error) => warn(error, 'summarising the observations index failed'));
      stored(batch);
      return { accepted: claim.result, duplicate: false };
    }

    // A retry: the body must be the one first sent under this key.
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > maxBatchBytes) break;
    }
    if (!consumed || input.digest() !== claim.bodySha256) {
      throw new AppError(
        422,
        'idempotency_key_reused',
        `Idempotency-Key "${input.idempotencyKey}" was used for a different batch on this run`,
      );
    }
    return { accepted: claim.accepted, duplicate: true };
  }
}

/** A failure of one of ingestTogether's batches, saying which (its index). */
export class PartFailure extends Error {
  constructor(
    readonly part: number,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'PartFailure';
  }
}

async function inPart<T>(part: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof PartFailure ? error : new PartFailure(part, error);
  }
}

/**
 * What a batch's transaction does once its key is claimed: its rows loaded, its changes
 * settled, its kept summaries and phases brought up to date, under their locks.
 */
async function writeBatch(
  store: BatchStore,
  batch: BatchAssembler,
  rows: AsyncIterable<Uint8Array> | Uint8Array[],
  input: Pick<IngestInput, 'lines' | 'digest'>,
  phases: { sentMs: number; copiedMs: number; summarizedMs: number },
  since: () => number,
  /**
   * Its observations staged before (stageObservations), made visible, not copied; and what
   * it keeps that was staged with them (stageKept), taken where still right.
   */
  staged?: StagedKept,
): Promise<number> {
  const { lines } = input;
  if (lines) {
    const stored = await store.claimSourceLines(lines);
    if (stored) {
      throw new AppError(
        409,
        'lines_already_stored',
        `lines ${lines.first}-${lines.last} of source ${lines.source} overlap lines ${stored.first}-${stored.last}, already stored on this run; GET /runs/{id}/events/sources/${lines.source} tells which lines are stored`,
        { field: 'lines' },
      );
    }
  }
  if (staged) await store.unstage();
  else await store.copyObservations(rows, () => prepareApplicationsInSlices(batch, phases, since));
  checkLines(batch, lines);
  phases.copiedMs = since();
  await store.copyIncidents(batch.incidents);
  await store.copyLifecycle(batch.lifecycle);
  await store.storeClocks(batch.clocks);
  // From here to the commit this batch alone works on its changes' and phases' kept
  // state: concurrent batches of one change merge one after the other, never over
  // each other.
  await store.lockKeptState(
    [...batch.changes.keys(), ...batch.references.keys()],
    summariesTouched(batch),
    batch.phases.keys(),
  );
  await settleChanges(store, batch);
  await mergePhases(store, batch);
  await summarize(store, batch, staged);
  phases.summarizedMs = since();
  await store.finish(batch.accepted, input.digest());
  return batch.accepted;
}

/** A stored batch's first applications, by change and stage. */
function observedStages(batch: BatchAssembler): ObservedStage[] {
  const out: ObservedStage[] = [];
  for (const [changeId, stages] of batch.applications)
    for (const [stage, apps] of stages) out.push({ changeId, stage, apps });
  return out;
}

/**
 * What a staged batch wrote ahead of its transaction of what it keeps: each summary it
 * makes, assuming the change's time `atUs` and, when something was kept of the change at
 * the stage, that it is still what `basis` says (the batch whose blocks the summary held,
 * and its observations): a summary it alone makes (nothing was kept), or its observations
 * merged into the kept ones; and its fingerprints (always). `superseded` is filled by its
 * transaction: the blocks its summaries held before, to remove after the commit.
 */
interface StagedKept {
  summaries: Map<
    string,
    {
      atUs: number;
      basis?: { blocksBatch: number; observations: number };
      summary: Omit<SummaryToSave, 'proxiesFingerprinted'>;
    }
  >;
  superseded: { changeId: string; stage: string; batchId: number }[];
}

const stageKey = (changeId: string, stage: string) => `${changeId}\0${stage}`;

/**
 * Makes the summaries a staged batch makes (of changes and stages nothing is kept of yet,
 * as a run's first batch of a change, from the batch alone; of the others by merging the
 * batch into the kept latencies, read in pieces) and stages their blocks and the batch's
 * fingerprints ahead of its transaction, in pieces (the embedded database): the
 * transaction then only takes them, instead of writing megabytes while reads wait. What
 * it assumed is checked again in the transaction, under the locks (summarize).
 */
async function stageKept(
  events: EventsRepository,
  runId: string,
  batchId: number,
  batch: BatchAssembler,
): Promise<StagedKept> {
  const summaries: StagedKept['summaries'] = new Map();
  const fingerprinted: Fingerprinted[] = [];
  const changeIds = [...batch.applications.keys()];
  if (changeIds.length === 0) return { summaries, superseded: [] };
  const { prior, changes } = await events.keptBefore(runId, changeIds);
  const storedAt = new Map(changes.map((c) => [c.id, c.atUs]));
  for (const [changeId, stages] of batch.applications) {
    const defined = batch.changes.get(changeId)?.atUs;
    const stored = storedAt.get(changeId);
    // A change unknown, or given again at another time: the transaction refuses the batch.
    const atUs = defined ?? stored;
    const settled = atUs !== undefined && (stored === undefined || stored === atUs);
    for (const [stage, apps] of stages) {
      fingerprinted.push({ changeId, stage, fingerprints: apps.fingerprints() });
      if (!settled) continue;
      const before = prior.get(changeId)?.get(stage);
      if ((before?.observations ?? 0) === 0) {
        summaries.set(stageKey(changeId, stage), {
          atUs,
          summary: toSummary(apps.latencies(atUs)),
        });
      } else if (before) {
        const set = await mergeAhead(events, runId, batchId, changeId, stage, apps, before, atUs);
        if (set) {
          const basis = { blocksBatch: before.blocksBatch, observations: before.observations };
          summaries.set(stageKey(changeId, stage), { atUs, basis, summary: toSummary(set) });
        }
      }
      await yieldToLoop();
    }
  }
  await events.stageKept(
    runId,
    batchId,
    [...summaries].map(([key, { summary }]) => {
      const [changeId, stage] = key.split('\0') as [string, string];
      return { changeId, stage, blocks: summary.blocks };
    }),
    fingerprinted,
    yieldToLoop,
  );
  return { summaries, superseded: [] };
}

/**
 * A staged batch's observations of a change at a stage merged into what is kept of it
 * (`before`), ahead of its transaction: the kept latencies read in pieces, the batch's
 * proxies told new by the kept fingerprints or else by the earlier observations, as the
 * transaction does (summarize). Undefined when the kept blocks went meanwhile (another
 * batch of the change committed): the transaction merges then.
 */
async function mergeAhead(
  events: EventsRepository,
  runId: string,
  batchId: number,
  changeId: string,
  stage: string,
  apps: FirstApplications,
  before: PriorSummary,
  atUs: number,
): Promise<LatencySet | undefined> {
  const allNew =
    before.proxiesFingerprinted &&
    !apps.mayRepeat(
      await events.aheadOfBatch(runId, batchId, (store) => store.keptFingerprints(changeId, stage)),
    );
  await yieldToLoop();
  const earlier = allNew
    ? new Map<string, number>()
    : await events.aheadOfBatch(runId, batchId, (store) =>
        store.earlierFirstApplications(changeId, stage),
      );
  const kept = await events.blocksOf(runId, changeId, stage, before.blocksBatch, yieldToLoop);
  if (kept.length !== before.count) return undefined;
  return mergeBatch(kept, before.observations, apps, earlier, atUs);
}

/**
 * The batch's first applications sorted and fingerprinted, with the event loop let run
 * between each sort and fingerprinting and the sort itself in steps (prepareSteps): while
 * its rows are sent (Postgres, beside the COPY's end) or before its transaction (the
 * embedded database). 550,000 proxies held the loop for a few hundred milliseconds in one go.
 */
async function prepareApplicationsInSlices(
  batch: BatchAssembler,
  phases: { sentMs: number },
  since: () => number,
): Promise<void> {
  phases.sentMs = since();
  for (const stages of batch.applications.values())
    for (const apps of stages.values()) {
      await yieldToLoop();
      await runSliced(apps.prepareSteps());
      await yieldToLoop();
      apps.fingerprints();
    }
}

/** A batch of a source's lines holds exactly the lines it says it does. */
function checkLines(batch: BatchAssembler, lines: SourceLines | undefined): void {
  if (!lines || batch.lastLine === lines.last) return;
  throw new AppError(
    400,
    'invalid_request',
    `the batch says it holds lines ${lines.first}-${lines.last} (${lines.last - lines.first + 1}) but has ${batch.lastLine - lines.first + 1}`,
    { field: 'lines' },
  );
}

/** New changes are stored; a change given again must match; referenced ones must exist. */
async function settleChanges(store: BatchStore, batch: BatchAssembler): Promise<void> {
  const ids = [...new Set([...batch.changes.keys(), ...batch.references.keys()])];
  const stored = new Map((await store.storedChanges(ids)).map((c) => [c.id, c]));
  for (const [id, line] of batch.references) {
    if (!batch.changes.has(id) && !stored.has(id)) {
      throw new AppError(
        422,
        'unknown_change',
        `line ${line}: observation of change "${id}", which is neither in this batch nor stored for this run`,
        { line, field: 'change' },
      );
    }
  }
  const fresh = [];
  for (const [id, c] of batch.changes) {
    const existing = stored.get(id);
    if (!existing) {
      // Stored as the instant it was read (to the microsecond), not as written: a time
      // with more digits would otherwise be rounded by Postgres and differ when sent again.
      fresh.push({
        ...c.event,
        at: formatTimestampUs(c.atUs),
        expected: c.event.expected ?? null,
        atUs: c.atUs,
      });
      continue;
    }
    const field = differingField(existing, existing.atUs, c.event, c.atUs);
    if (field) {
      throw new AppError(
        409,
        'change_conflict',
        `line ${c.line}: change "${id}" is already stored with a different "${field}"`,
        { line: c.line, field },
      );
    }
  }
  await store.insertChanges(fresh);
}

/**
 * The kept summaries a batch may write: each (change, stage) it observed, and the
 * `applied` summary of each change it defines (an empty one for a change not yet observed).
 */
function summariesTouched(batch: BatchAssembler): { changeId: string; stage: string }[] {
  const out: { changeId: string; stage: string }[] = [];
  for (const changeId of batch.changes.keys())
    if (!batch.applications.get(changeId)?.has(APPLIED_STAGE))
      out.push({ changeId, stage: APPLIED_STAGE });
  for (const [changeId, stages] of batch.applications)
    for (const stage of stages.keys()) out.push({ changeId, stage });
  return out;
}

/**
 * Brings the kept summary of every change and stage the batch touched up to date (one
 * summary per stage: an observation without a stage is `applied`). A change seen at a stage
 * for the first time is summarised from the batch alone; one with earlier observations at
 * that stage merges the batch into its kept latencies. Which of the batch's proxies were
 * seen at the stage before is asked of Postgres (a scan of the change's earlier
 * observations) only when the fingerprints earlier batches left do not prove them all new,
 * as in an upload cut into batches of distinct proxies.
 */
async function summarize(
  store: BatchStore,
  batch: BatchAssembler,
  staged?: StagedKept,
): Promise<void> {
  const touched = summariesTouched(batch);
  const changeIds = [...new Set(touched.map((t) => t.changeId))];
  const prior = await store.priorSummaries(changeIds);
  const changeAt = new Map((await store.storedChanges(changeIds)).map((c) => [c.id, c.atUs]));
  const fingerprints: { changeId: string; stage: string; fingerprints: Float64Array }[] = [];
  for (const { changeId, stage } of touched) {
    const atUs = changeAt.get(changeId) as number;
    const apps = batch.applications.get(changeId)?.get(stage);
    const kept = prior.get(changeId)?.get(stage);
    const priorObservations = kept?.observations ?? 0;
    if (!apps && kept) continue; // given again, nothing new about it
    const early = staged?.summaries.get(stageKey(changeId, stage));
    if (staged && early && apps) {
      // Made before the transaction, from the batch alone (right if still nothing is kept)
      // or merged into what was kept (right if that is still the same summary).
      const same = early.basis
        ? kept?.blocksBatch === early.basis.blocksBatch &&
          priorObservations === early.basis.observations
        : priorObservations === 0;
      if (same && early.atUs === atUs) {
        const proxiesFingerprinted = priorObservations === 0 || kept?.proxiesFingerprinted === true;
        const previous = await store.saveSummary(
          changeId,
          stage,
          { ...early.summary, proxiesFingerprinted },
          true,
        );
        if (previous !== undefined && previous !== store.batchId)
          staged.superseded.push({ changeId, stage, batchId: previous });
        continue;
      }
      await store.dropStagedBlocks(changeId, stage);
    }
    let set: LatencySet;
    if (!apps) set = latencySet(new Float64Array(0), 0);
    else if (priorObservations === 0) set = apps.latencies(atUs);
    else {
      const allNew =
        kept?.proxiesFingerprinted === true &&
        !apps.mayRepeat(await store.keptFingerprints(changeId, stage));
      const earlier = allNew ? new Map() : await store.earlierFirstApplications(changeId, stage);
      set = mergeBatch(
        await store.keptLatencies(changeId, stage),
        priorObservations,
        apps,
        earlier,
        atUs,
      );
    }
    // A staged batch's fingerprints are stored already (stageKept).
    if (apps && !staged) fingerprints.push({ changeId, stage, fingerprints: apps.fingerprints() });
    // Fingerprinted from its first observations on, or never (batches stored before there
    // were fingerprints): a batch can only prove its proxies new against every earlier one.
    const proxiesFingerprinted = priorObservations === 0 || kept?.proxiesFingerprinted === true;
    await store.saveSummary(changeId, stage, { ...toSummary(set), proxiesFingerprinted });
  }
  await store.saveFingerprints(fingerprints);
}

/**
 * Brings each lifecycle phase the batch touched up to date: its entities' first arrivals
 * merge into the phase's kept sorted arrivals, as a change's latencies do.
 */
async function mergePhases(store: BatchStore, batch: BatchAssembler): Promise<void> {
  for (const [phase, { entities, attrsTotal }] of batch.phases) {
    const names: string[] = [];
    const firsts: number[] = [];
    for (const [entity, firstUs] of entities.entries()) {
      names.push(entity);
      firsts.push(firstUs);
    }
    const earlier = await store.mergeLifecycleFirsts(phase, names, firsts);
    const kept = await store.keptPhase(phase);
    const merged = kept
      ? mergeBatch(kept.firstsUs, 0, entities, earlier, 0).sorted
      : entities.latencies(0).sorted;
    const keptTotal = kept?.attrsTotal ?? null;
    const total =
      attrsTotal === null
        ? keptTotal
        : keptTotal === null
          ? attrsTotal
          : Math.max(attrsTotal, keptTotal);
    await store.savePhase(phase, merged, total);
  }
}

function toSummary(set: LatencySet): Omit<SummaryToSave, 'proxiesFingerprinted'> {
  const blocks = splitBlocks(set.sorted, LATENCY_BLOCK_SIZE);
  return {
    count: set.sorted.length,
    observations: set.observations,
    repeats: set.repeats,
    beforeChange: set.beforeChange,
    minUs: set.sorted.length > 0 ? (set.sorted[0] as number) : null,
    maxUs: set.sorted.length > 0 ? (set.sorted[set.sorted.length - 1] as number) : null,
    sumUs: set.sumUs,
    blockSize: LATENCY_BLOCK_SIZE,
    blockFirsts: new Float64Array(blocks.map((b) => b[0] as number)),
    blocks,
  };
}
export type IngestService = ReturnType<typeof ingestService>;
