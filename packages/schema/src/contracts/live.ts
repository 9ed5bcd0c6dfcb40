// The live group: a run as Server-Sent Events while it happens.
import { z } from 'zod';
import { defineRoutes } from '../contract.ts';
import { apiError } from '../errors.ts';
import { LIVE_MIN_INTERVAL_MS } from '../live.ts';

const runParams = z.object({ id: z.string().min(1).describe('run id or share slug') });

export const liveRoutes = defineRoutes({
  live: {
    method: 'GET',
    path: '/runs/:id/live',
    tags: ['runs'],
    summary: 'A run as it happens (Server-Sent Events)',
    description: `The run as it happens, as Server-Sent Events (text/event-stream). Each \`state\` event's data is a whole \`runLive\` object (the run page's views, read by the same code as GET /runs/{id}, /changes, /changes/{c}/propagation, /timeline, /series, /results and /results/stages with their defaults, with the same exactness marks); its id is the run's data version. The current state comes first, then a new one when the run's data changes, at most one per ${LIVE_MIN_INTERVAL_MS} ms. The last event is \`end\`: the state after the run's finish, equal to what the stored views answer; then the stream closes. \`Last-Event-ID\` (sent by EventSource when it reconnects) skips the state the client has; a finished run whose end the client has answers 204 (which stops EventSource). Comment lines keep an idle stream open.`,
    params: runParams,
    headers: z.object({
      'last-event-id': z
        .string()
        .optional()
        .describe('the id of the last event the client has (a data version)'),
    }),
    responses: {
      200: {
        description: 'the run as Server-Sent Events',
        content: { 'text/event-stream': { schema: z.string() } },
      },
      204: z.null().describe('the run finished and the client has its end event'),
      404: apiError,
    },
  },
});
