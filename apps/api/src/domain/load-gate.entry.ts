// What bench/load-gate times: judging a load step on HdrHistograms, whose cost must follow
// the buckets and not the requests they count (the unit tests check the verdicts).
export { parseLoadRule } from '@meshbench/gates';
export { hdrStep, logNormalUs, STEP } from './load-gate.test-fixtures.ts';
export { judgeLoadStep } from './load-gate.ts';
