// The API's typed client for the web app, the CLI and the demo: every route, every answer
// parsed with its schema from @meshbench/schema. Browser- and Node-safe.
export * from './client.ts';
export * from './errors.ts';
export * from './live.ts';
export * from './routes.ts';
export * from './transport.ts';
