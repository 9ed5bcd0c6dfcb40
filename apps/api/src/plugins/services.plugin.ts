// Wires repositories into services once; routes reach services through app.services.
import { randomUUID } from 'node:crypto';
import fp from 'fastify-plugin';
import { clockRepository } from '../repositories/clock.repository.ts';
import type { Database } from '../repositories/database.ts';
import { eventsRepository } from '../repositories/events.repository.ts';
import { gatesRepository } from '../repositories/gates.repository.ts';
import { leasesRepository } from '../repositories/leases.repository.ts';
import { lifecycleRepository } from '../repositories/lifecycle.repository.ts';
import { metricsRepository } from '../repositories/metrics.repository.ts';
import { projectsRepository } from '../repositories/projects.repository.ts';
import {
  propagationOfRuns,
  propagationRepository,
} from '../repositories/propagation.repository.ts';
import { reportsRepository } from '../repositories/reports.repository.ts';
import { resultsOfRuns, resultsRepository } from '../repositories/results.repository.ts';
import { retentionRepository } from '../repositories/retention.repository.ts';
import { runFactsRepository } from '../repositories/run-facts.repository.ts';
import { runFinishRepository } from '../repositories/run-finish.repository.ts';
import { runsRepository } from '../repositories/runs.repository.ts';
import { stagesRepository } from '../repositories/stages.repository.ts';
import { tailRepository } from '../repositories/tail.repository.ts';
import { alertsService } from '../services/alerts.service.ts';
import { changePointsService } from '../services/change-points.service.ts';
import { churnService } from '../services/churn.service.ts';
import { clockCorrectionService } from '../services/clock-correction.service.ts';
import { clocksService } from '../services/clocks.service.ts';
import { comparabilityService } from '../services/comparability.service.ts';
import { compareSignificanceService } from '../services/compare-significance.service.ts';
import { compareViewService } from '../services/compare-view.service.ts';
import { exportService } from '../services/export.service.ts';
import { gateVerdictsService } from '../services/gate-verdicts.service.ts';
import { headlineReads } from '../services/headline-reads.ts';
import { headlinesService } from '../services/headlines.service.ts';
import { historyService } from '../services/history.service.ts';
import { ingestService } from '../services/ingest.service.ts';
import { liveService } from '../services/live.service.ts';
import { loadGateService } from '../services/load-gate.service.ts';
import { metricsServices } from '../services/metrics.wiring.ts';
import { otlpLogsService } from '../services/otlp-logs.service.ts';
import { projectsService } from '../services/projects.service.ts';
import { propagationService } from '../services/propagation.service.ts';
import { reportsService } from '../services/reports.service.ts';
import { resultsService } from '../services/results.service.ts';
import { retentionService } from '../services/retention.service.ts';
import { runFactsService } from '../services/run-facts.service.ts';
import { runFinishService } from '../services/run-finish.service.ts';
import { withHandedRuns } from '../services/run-lookup.ts';
import { runsService } from '../services/runs.service.ts';
import { stageGapService } from '../services/stage-gap.service.ts';
import { tailService } from '../services/tail.service.ts';
import { thresholdsService } from '../services/thresholds.service.ts';
import { uploadCounts } from '../services/upload-counts.ts';

export interface ServicesOptions {
  maxBatchBytes: number;
  /** Event batches this replica works on at once (more: 503). */
  maxConcurrentBatches: number;
  /** Event batches of one project this replica works on at once (more: 503). */
  maxConcurrentBatchesPerProject?: number;
  maxConcurrentResultUploads?: number;
  maxConcurrentResultUploadsPerProject?: number;
  adminToken: string | undefined;
  /** OTLP requests this replica decodes and stores at once (more: 503). */
  maxConcurrentOtlp: number;
  /** Largest OTLP request (decompressed). */
  otlpMaxBytes: number;
  /** How long, and how many, points that matched no run are kept for a later run. */
  unmatchedRetentionMs: number;
  unmatchedMaxPoints: number;
  /** How often the change points of runs written after their finish are looked at again. */
  alertsRecheckMs: number;
  /** How often raw rows past their project's retention are dropped; 0 or unset: never. */
  retentionMs?: number;
}

/** Bodies that may be arriving at once per OTLP slot of work. */
export const OTLP_RECEIVING_PER_SLOT = 4;
/** OTLP bodies of the largest size that may be held in memory at once. */
export const OTLP_BUFFERED_REQUESTS = 4;

/** Runs whose corrected summaries one worker tick computes at most. */
const CORRECTIONS_BATCH = 20;

/** How often held metric points past their time are forgotten. */
const HELD_EXPIRY_MS = 60_000;

/** The services on a database: what the plugin decorates the app with, and what the medium tests call. */
export function buildServices(
  database: Database,
  opts: ServicesOptions,
  warn: (error: unknown, message: string) => void,
  debug: (fields: Record<string, unknown>, message: string) => void,
) {
  const { maxBatchBytes, maxConcurrentBatches, adminToken } = opts;
  // A read's run, loaded by its access check (auth.plugin.ts), is its first lookup's.
  const runs = withHandedRuns(runsRepository(database.db));
  const propagation = propagationRepository(database);
  const events = eventsRepository(database);
  const projects = projectsService({ projects: projectsRepository(database.db), adminToken });
  const metrics = metricsServices(database, runs, opts.unmatchedRetentionMs, {
    maxInFlight: opts.maxConcurrentOtlp,
    // Bodies arriving are bounded apart from the work: slow senders hold these.
    maxReceiving: OTLP_RECEIVING_PER_SLOT * opts.maxConcurrentOtlp,
    maxBufferedBytes: OTLP_BUFFERED_REQUESTS * opts.otlpMaxBytes,
  });
  const uploads = uploadCounts();
  const clocks = clockRepository(database);
  const corrections = clockCorrectionService({ propagation, clocks });
  const propagationReads = propagationService({ runs, propagation, corrections });
  const stageGap = stageGapService({ runs, propagation, stages: stagesRepository(database) });
  const runClocks = clocksService({ runs, clocks });
  const ingest = ingestService({
    runs,
    events,
    maxBatchBytes,
    uploads: uploads.events,
    maxConcurrentBatches,
    maxConcurrentBatchesPerProject: opts.maxConcurrentBatchesPerProject,
    // One connection: a batch is read whole before its transaction holds it.
    readBeforeTransaction: database.kind === 'embedded',
    // And its observations stored in bounded pieces ahead of the transaction (issue 26).
    stageObservations: database.kind === 'embedded',
    warn,
    debug,
    // A batch makes the run's corrected summaries stale: computed again now, not by a read.
    afterStored: (runId, observed) => corrections.correctAfterWrite(runId, observed),
  });
  const services = {
    projects,
    runs: runsService({ runs, projects, claimHeld: metrics.claimHeld }),
    ingest,
    otlpLogs: otlpLogsService({ runs, ingest }),
    export: exportService({ runs, events, propagation }),
    /** A change's propagation, the gap between its stages, and the run's node clocks. */
    propagation: {
      ...propagationReads,
      stageGap: stageGap.stageGap,
      clocks: runClocks.clocks,
    },
    corrections,
    churn: churnService({ runs, propagation }),
    results: resultsService({
      runs,
      results: resultsRepository(database.db, database),
      uploads: uploads.results,
      maxConcurrentUploads: opts.maxConcurrentResultUploads,
      maxConcurrentUploadsPerProject: opts.maxConcurrentResultUploadsPerProject,
    }),
    tail: tailService({
      runs,
      propagation,
      tail: tailRepository(database),
      clocks,
      corrected: corrections,
    }),

    ...metrics,
    /** What the upload paths (events, result files) answered since the start. */
    uploads,
    /** Whether the database has no runs yet (first start). */
    isEmpty: () => runs.isEmpty(),
  };
  const gates = gatesRepository(database.db);
  const compareSignificance = compareSignificanceService({
    runs,
    projects,
    propagation: services.propagation,
    gates,
  });
  const comparability = comparabilityService({ runs, results: services.results });
  const loadGate = loadGateService({ runs, results: services.results, projects });
  const batchedReads = headlineReads({
    runs,
    propagation,
    propagationOfRuns: propagationOfRuns(database),
    results: resultsRepository(database.db, database),
    resultsOfRuns: resultsOfRuns(database.db),
    lifecycle: lifecycleRepository(database.db),
    corrections,
    uploads: uploads.results,
  });
  const headlines = headlinesService({ runs, readsFor: batchedReads });
  const compareView = compareViewService({
    runs,
    projects,
    readsFor: batchedReads,
    headlines,
    clocks,
    corrections,
    series: metricsRepository(database),
  });
  const facts = runFactsRepository(database.db);
  const alerts = alertsService({ gates, runs, projects });
  const runFacts = runFactsService({
    runs,
    facts,
    propagation: services.propagation,
    churn: services.churn,
    lifecycle: lifecycleRepository(database.db),
    metrics: metricsRepository(database),
    results: services.results,
  });
  const changePoints = changePointsService({
    runs,
    facts,
    runFacts,
    alerts,
    projects: { detection: (id) => projects.detection(id) },
  });
  const history = historyService({
    runs,
    runFacts,
    alerts,
    projects: {
      find: (ref) => projects.find(ref),
      detection: (id) => projects.detection(id),
    },
  });
  const thresholds = thresholdsService({ gates, runs, projects });
  const verdicts = gateVerdictsService({
    gates,
    runs,
    projects,
    propagation: services.propagation,
    comparability,
    loadGate,
  });
  // A live state is the stored views' own reads, with their routes' defaults.
  const live = liveService({
    mark: (runId) => facts.liveMark(runId),
    run: async (ref) => {
      const found = await services.runs.get(ref);
      return { ...found, gated: await verdicts.hasResult(found.id) };
    },
    changes: (id) => services.propagation.changes(id),
    propagation: (id, changeId, q) => services.propagation.propagation(id, changeId, q),
    churn: (id, q) => services.churn.runPropagation(id, q),
    timeline: (id, q) => services.timeline.timeline(id, q),
    series: (id, q) => services.metrics.series(id, q),
    results: (id, ps) => services.results.list(id, ps),
    stages: (id, ps) => services.results.stages(id, ps),
  });
  return {
    ...services,
    live,
    comparability,
    compareSignificance,
    compareView,
    loadGate,
    headlines,
    reports: reportsService({
      reports: reportsRepository(database.db),
      ...services,
      headlines,
      compareSignificance,
    }),
    history,
    runFacts,
    changePoints,
    thresholds,
    verdicts,
    alerts,
    /** What the gate routes call: thresholds, verdicts and alerts. */
    gates: {
      createThreshold: thresholds.createThreshold,
      thresholds: thresholds.thresholds,
      deleteThreshold: thresholds.deleteThreshold,
      result: verdicts.result,
      hasResult: verdicts.hasResult,
      significance: verdicts.significance,
      alerts: alerts.alerts,
      updateAlert: alerts.updateAlert,
    },
    finish: runFinishService({
      runs,
      runsService: services.runs,
      state: runFinishRepository(database.db),
      gates: verdicts,
      alerts,
      propagation: corrections,
      history: changePoints,
      results: services.results,
    }),
    retention: retentionService({
      retention: retentionRepository(database.db),
      projects: { find: (ref) => projects.find(ref) },
    }),
  };
}
export type Services = ReturnType<typeof buildServices>;

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    /**
     * Looks again at the change points of finished runs written after they were looked for
     * (changePoints.recheckAlerts), then forgets the read cache's answers if any run was looked at.
     */
    recheckAlerts(
      options?: Parameters<Services['changePoints']['recheckAlerts']>[0],
    ): Promise<number>;
    /**
     * Goes on with runs whose finish stopped part way (services.finish.resumeUnfinished),
     * then forgets the read cache's answers if any run was looked at.
     */
    resumeFinishes(
      options?: Parameters<Services['finish']['resumeUnfinished']>[0],
    ): Promise<number>;
    /**
     * Computes the corrected summaries of runs written since theirs were
     * (services.corrections.correctStale), then forgets the read cache's answers if any.
     */
    correctStale(limit?: number): Promise<number>;
  }
}

export default fp<ServicesOptions>(
  async (app, opts) => {
    const services = buildServices(
      app.database,
      opts,
      (err, message) => app.log.warn({ err }, message),
      (fields, message) => app.log.debug(fields, message),
    );
    app.decorate('services', services);
    // A batch staged on the embedded database by a process stopped meanwhile is removed
    // before any other (one process holds the embedded database: none is in progress).
    if (app.database.kind === 'embedded') {
      const removed = await services.ingest.discardStagedBatches();
      if (removed > 0)
        app.log.warn(`removed ${removed} event batches left staged by a stopped process`);
    }
    // So are interval logs staged by a stopped process; on Postgres, where other replicas may
    // be storing one now, only those staged more than an hour ago.
    const removedUploads = await services.results.discardStagedUploads(
      app.database.kind === 'embedded' ? 0 : 3_600_000,
    );
    if (removedUploads > 0)
      app.log.warn(`removed ${removedUploads} result files left staged by a stopped process`);
    // Background work runs once across the replicas sharing the database: each job on the
    // replica that holds its lease (background_leases), renewed at every tick; a lease whose
    // holder stopped without giving it back expires after three of its ticks.
    const leases = leasesRepository(app.database.db);
    const holder = randomUUID();
    const held = new Set<string>();
    const holds = async (job: string, everyMs: number) => {
      const ok = await leases.take(job, holder, 3 * everyMs);
      if (ok) held.add(job);
      else held.delete(job);
      return ok;
    };
    // Held points past their time (or beyond the bound) are forgotten, once a minute.
    const expiry = setInterval(() => {
      holds('held-points-expiry', HELD_EXPIRY_MS)
        .then((ok) =>
          ok ? services.expireHeld(opts.unmatchedRetentionMs, opts.unmatchedMaxPoints) : undefined,
        )
        .catch((error) => app.log.warn({ err: error }, 'forgetting held metric points failed'));
    }, HELD_EXPIRY_MS);
    expiry.unref();
    // Finished runs written since their change points were looked for (metric points an
    // exporter flushed after the finish, a result file posted later) have them looked at
    // again. The need is kept in the database (run_facts), so a restart loses none.
    app.decorate('recheckAlerts', async (options = {}) => {
      // Older finished runs without kept facts have them kept first (no alert on them).
      const kept = await services.runFacts.keepMissing({ projectId: options.projectId });
      const looked = await services.changePoints.recheckAlerts({
        warn: (error, runId) =>
          app.log.warn({ err: error }, `looking again at the change points of run ${runId} failed`),
        looked: (runId) => app.log.info(`looked again at the change points of run ${runId}`),
        ...options,
      });
      // Alerts changed without a request: answers kept before would show them as they were.
      if (looked + kept > 0) app.readCache?.invalidate();
      return looked;
    });
    // Finishes that stopped part way (a step failed, a replica stopped mid-finish) go on
    // from the step kept as next (run_finishes), so a restart loses none either.
    app.decorate('resumeFinishes', async (options = {}) => {
      const looked = await services.finish.resumeUnfinished({
        warn: (error, runId) =>
          app.log.warn({ err: error }, `going on with finishing run ${runId} failed`),
        done: (runId) => app.log.info(`finished the steps left of run ${runId}`),
        ...options,
      });
      if (looked > 0) app.readCache?.invalidate();
      return looked;
    });
    app.decorate('correctStale', async (limit = CORRECTIONS_BATCH) => {
      const looked = await services.corrections.correctStale(limit, (error, runId) =>
        app.log.warn({ err: error }, `correcting the clocks of run ${runId} failed`),
      );
      if (looked > 0) app.readCache?.invalidate();
      return looked;
    });
    // The recheck in progress, if any: a tick while one runs starts none (but renews the
    // leases, so no other replica takes the runs this one is at). Unfinished finishes go
    // first: a run's alerts are looked for by its history step.
    let rechecking: Promise<unknown> | null = null;
    const recheck =
      opts.alertsRecheckMs > 0
        ? setInterval(() => {
            Promise.all([
              holds('run-finish', opts.alertsRecheckMs),
              holds('alerts-recheck', opts.alertsRecheckMs),
              holds('clock-corrections', opts.alertsRecheckMs),
            ]).then(
              ([finishing, alerting, correcting]) => {
                if (!finishing && !alerting && !correcting) return;
                rechecking ??= (async () => {
                  if (correcting)
                    await app
                      .correctStale()
                      .catch((error) =>
                        app.log.warn({ err: error }, 'correcting run clocks failed'),
                      );
                  if (finishing)
                    await app
                      .resumeFinishes()
                      .catch((error) =>
                        app.log.warn({ err: error }, 'going on with unfinished runs failed'),
                      );
                  if (alerting)
                    await app
                      .recheckAlerts()
                      .catch((error) =>
                        app.log.warn({ err: error }, 'looking again at change points failed'),
                      );
                })().finally(() => {
                  rechecking = null;
                });
              },
              (error) => app.log.warn({ err: error }, 'taking the background leases failed'),
            );
          }, opts.alertsRecheckMs)
        : undefined;
    recheck?.unref();
    // Raw rows past their project's retention are dropped on the lease holder; a tick while
    // a sweep runs starts none. Reads cached before a sweep may still show dropped rows for
    // MESHBENCH_READ_CACHE_MS: the cache is forgotten when a sweep dropped any.
    let sweeping: Promise<unknown> | null = null;
    const retentionMs = opts.retentionMs ?? 0;
    const retention =
      retentionMs > 0
        ? setInterval(() => {
            holds('raw-retention', retentionMs).then(
              (ok) => {
                if (!ok) return;
                sweeping ??= services.retention
                  .sweep()
                  .then((dropped) => {
                    for (const d of dropped)
                      app.log.info({ rows: d.rows }, `dropped the raw rows of run ${d.runId}`);
                    if (dropped.length > 0) app.readCache?.invalidate();
                  })
                  .catch((error) => app.log.warn({ err: error }, 'dropping raw rows failed'))
                  .finally(() => {
                    sweeping = null;
                  });
              },
              (error) => app.log.warn({ err: error }, 'taking the retention lease failed'),
            );
          }, retentionMs)
        : undefined;
    retention?.unref();
    app.addHook('onClose', async () => {
      clearInterval(expiry);
      clearInterval(recheck);
      clearInterval(retention);
      await rechecking;
      await sweeping;
      // Given back, so another replica takes the work at its next tick, not at expiry.
      for (const job of held) await leases.release(job, holder).catch(() => {});
    });
  },
  { name: 'services', dependencies: ['database'] },
);
