// What bench/load-gate times: judging a load step on HdrHistograms, whose cost must follow
// the buckets and not the requests they count (the unit tests check the verdicts).
export { parseLoadRule } from '@meshbench/gates';
export { prng } from '../demo/prng.ts';
export { decodeHdr } from './hdr.ts';
export { countedOf, judgeLoadStep, type LoadStepSide } from './load-gate.ts';
export { HdrMerger } from './load-steps.ts';
