// Finishing a run, as one resumable unit: the run's status is set together with the first
// step to do (run_finishes), then each step runs in order and its completion is kept. A step
// that fails stays the next one, visible on the run (`finishing`), and is tried again by the
// next PATCH (which begins again from the first step) or by the background worker (which
// goes on from the step that failed). Every step can run again with the same outcome.
import type { FinishRunBody, FinishStep, GateResult, Run, RunFinishing } from '@meshbench/schema';
import { finishStep } from '@meshbench/schema';
import { AppError } from '../errors.ts';
import type { RunFinishRepository } from '../repositories/run-finish.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';
import type { AlertsService } from './alerts.service.ts';
import type { ChangePointsService } from './change-points.service.ts';
import type { ClockCorrectionService } from './clock-correction.service.ts';
import { asAppError } from './failure.ts';
import type { GateVerdictsService } from './gate-verdicts.service.ts';
import type { ResultsService } from './results.service.ts';
import type { RunsService } from './runs.service.ts';

const STEPS = finishStep.options;

/** A run not `finished` (failed, cancelled) is held to no thresholds: what its reads keep. */
const stepsOf = (status: string): readonly FinishStep[] =>
  status === 'finished' ? STEPS : ['clock-correction', 'load-slots'];

/** The step after `step` for a run of `status`; null after the last. */
function nextStep(step: FinishStep, status: string): FinishStep | null {
  const steps = stepsOf(status);
  const later = STEPS.slice(STEPS.indexOf(step) + 1);
  return later.find((s) => steps.includes(s)) ?? null;
}

/** Seconds a PATCH whose finish stopped part way tells the client to wait. */
const RETRY_AFTER_FINISH_S = 2;
/** Unfinished runs one worker tick goes on with at most. */
export const FINISH_BATCH = 20;
/** A finish that moved within this long is in progress: the worker leaves it alone. */
export const FINISH_SETTLED_MS = 30_000;

export function runFinishService(deps: {
  runs: Pick<RunsRepository, 'find'>;
  runsService: Pick<RunsService, 'finish'>;
  state: RunFinishRepository;
  gates: Pick<GateVerdictsService, 'evaluate' | 'hasResult' | 'result'>;
  alerts: Pick<AlertsService, 'alertsAfterFinish'>;
  propagation: Pick<ClockCorrectionService, 'warmCorrected'>;
  history: Pick<ChangePointsService, 'afterFinish'>;
  results: Pick<ResultsService, 'keepSlots'>;
}) {
  const { runs, runsService, state, gates, alerts, propagation, history, results } = deps;

  /** The gate verdict kept for the run; null when none is. */
  const keptGate = async (runId: string): Promise<GateResult | null> =>
    (await gates.hasResult(runId)) ? gates.result(runId) : null;

  /**
   * Runs the run's undone steps from the one kept as next. Returns the gate verdict (of this
   * call's gate step, else the kept one); a step's failure is kept and thrown.
   */
  async function complete(runId: string): Promise<GateResult | null> {
    const run = await runs.find(runId);
    if (!run) return null;
    let step = (await state.of(runId))?.step as FinishStep | null | undefined;
    let gate: GateResult | null | undefined;
    while (step) {
      try {
        switch (step) {
          case 'clock-correction':
            // Corrected summaries computed now, so the finished run's first reads are warm.
            await propagation.warmCorrected(run.id);
            break;
          case 'load-slots':
            // Slots of intervals kept before slots were: built now, never by a read.
            await results.keepSlots(run.id);
            break;
          case 'gate':
            gate = await gates.evaluate(run.id);
            break;
          case 'alerts':
            gate ??= await keptGate(run.id);
            await alerts.alertsAfterFinish(run.id, gate);
            break;
          case 'history':
            // What a history reads of the run, kept now (a history of 1,000 runs computes
            // none), and the change points of its series in every alerting metric as alerts.
            await history.afterFinish(run.id);
            break;
        }
      } catch (error) {
        await state
          .failed(run.id, step, error instanceof Error ? error.message : String(error))
          .catch(() => {});
        throw Object.assign(error instanceof Object ? error : new Error(String(error)), {
          finishStep: step,
        });
      }
      const next = nextStep(step, run.status);
      await state.advance(run.id, step, next);
      step = next;
    }
    return gate !== undefined ? gate : run.status === 'finished' ? keptGate(run.id) : null;
  }

  return {
    /**
     * Finishes the run (PATCH /runs/{id}): its status set with finishing begun at the first
     * step, then every step. A step that fails leaves the run finished and the step next,
     * answered as a 503 (or the failure's own AppError) that says which step.
     */
    async finish(
      idOrSlug: string,
      body: FinishRunBody,
    ): Promise<Run & { gate: GateResult | null }> {
      const status = body.status ?? 'finished';
      const finished = await runsService.finish(idOrSlug, body, stepsOf(status)[0] as FinishStep);
      try {
        const gate = await complete(finished.id);
        return { ...finished, gate: finished.status === 'finished' ? gate : null };
      } catch (error) {
        const known = asAppError(error);
        if (known) throw known;
        const step = (error as { finishStep?: string }).finishStep ?? 'unknown';
        const incomplete = new AppError(
          503,
          'finish_incomplete',
          `run "${idOrSlug}" is ${status}, but finishing it stopped at step "${step}"; the step is tried again in the background, or send the PATCH again after Retry-After`,
        );
        incomplete.retryAfterS = RETRY_AFTER_FINISH_S;
        throw incomplete;
      }
    },

    /** What is left of finishing the run, for its answer; undefined when nothing is. */
    async finishing(runId: string): Promise<RunFinishing | undefined> {
      const s = await state.of(runId);
      if (!s?.step) return undefined;
      return {
        step: s.step as FinishStep,
        failures: s.failures,
        failedAt: s.failedAt ? s.failedAt.toISOString() : null,
      };
    },

    /**
     * The background worker's part: goes on with runs whose finish stopped part way (a step
     * failed, or the process stopped) and did not move for `settledMs`. A run that fails
     * again is tried at a later tick. Returns how many runs were looked at.
     */
    async resumeUnfinished(
      options: {
        limit?: number;
        settledMs?: number;
        warn?: (error: unknown, runId: string) => void;
        done?: (runId: string) => void;
      } = {},
    ): Promise<number> {
      const { limit = FINISH_BATCH, settledMs = FINISH_SETTLED_MS, warn, done } = options;
      const ids = await state.unfinished(limit, settledMs);
      for (const runId of ids) {
        try {
          await complete(runId);
          done?.(runId);
        } catch (error) {
          warn?.(error, runId);
        }
      }
      return ids.length;
    },
  };
}
export type RunFinishService = ReturnType<typeof runFinishService>;
