export * from './events.ts';
export * from './gates.ts';
export * from './history.ts';
export * from './load-results.ts';
export * from './metrics.ts';
export * from './projects.ts';
export * from './reports.ts';
export * from './runs.ts';
