// Shared zod schemas: request validation in the API, OpenAPI, and parsing in web and CLI.
export * from './accuracy.ts';
export * from './alerts.ts';
export * from './churn.ts';
export * from './errors.ts';
export * from './events.ts';
export * from './gates.ts';
export * from './load-results.ts';
export * from './metrics.ts';
export * from './projects.ts';
export * from './propagation.ts';
export * from './reports.ts';
export * from './results-api.ts';
export * from './run.ts';
export * from './tail.ts';
export * from './tail-attribution.ts';
export * from './tail-cause-names.ts';
export * from './time.ts';
