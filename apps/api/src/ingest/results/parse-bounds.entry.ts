// What bench/parse-bounds times: the result-file paths that once cost quadratic time or
// unbounded work, named for the bench (the unit tests check their answers, not their time).
export { decodeResults } from './index.ts';
export { toNumber } from './values.ts';
export { decodeWrk2 } from './wrk2.decoder.ts';
export { parseYaml } from './yaml-bounded.ts';
