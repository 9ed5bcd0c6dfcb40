// A change's stages (applied, and any other a probe reports): their order, and the one a
// summary shows when none is asked for.
import { APPLIED_STAGE, compareStages, type StageCount } from '@meshbench/schema';

/** A change's stages in the order a change reaches them. */
export function stageList(
  rows: { stage: string; count: number; observations: number }[],
): StageCount[] {
  return rows
    .map(({ stage, count, observations }) => ({ stage, count, observations }))
    .sort((a, b) => compareStages(a.stage, b.stage));
}

/**
 * The stage a summary shows when none is asked for: `applied`, as before stages existed,
 * unless the change has no applied observations but other stages; then the last of them.
 */
export function defaultStage(stages: readonly StageCount[]): string {
  if (stages.length === 0 || stages.some((s) => s.stage === APPLIED_STAGE)) return APPLIED_STAGE;
  return (stages[stages.length - 1] as StageCount).stage;
}
