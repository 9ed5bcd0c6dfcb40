// Regression gates: the rules ("p99>+10%"), the numbers they read from a run, and their
// verdict. Pure code shared by the API (thresholds on finished runs) and the CLI (--fail-on).
export * from './metrics.ts';
export * from './rules.ts';
