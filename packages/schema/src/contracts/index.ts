// Every route of the API as data, by group. The API registers each from here and a test
// holds the registered set equal to this one; the client derives its calls from it.
import { eventsRoutes } from './events.ts';
import { runsRoutes } from './runs.ts';

export { eventsRoutes } from './events.ts';
export { runParams, runsRoutes } from './runs.ts';

export const contracts = {
  runs: runsRoutes,
  events: eventsRoutes,
} as const;
