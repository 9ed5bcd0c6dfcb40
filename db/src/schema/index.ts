export * from './events.ts';
export * from './runs.ts';
