// Under Stryker each mutant runs the tests that reach it: generated-input tests use fewer
// cases there (fast-check's global default), still enough to kill a wrong rule.
import fc from 'fast-check';

fc.configureGlobal({ numRuns: 60 });
// Seeded simulations read this to run smaller (quantile-bootstrap.test.ts).
process.env.MESHBENCH_MUTATION_RUN = '1';
