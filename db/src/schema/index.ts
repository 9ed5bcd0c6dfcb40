export * from './events.ts';
export * from './load-results.ts';
export * from './reports.ts';
export * from './runs.ts';
