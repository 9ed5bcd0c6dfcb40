// GET /runs/{id}/live: the run as Server-Sent Events while it runs (docs/live.md). The viewer
// joins the run's one watch in this process; what it has not read yet waits in its socket,
// and a viewer that falls far behind is cut (it reconnects with Last-Event-ID and gets the
// latest state: states are whole, so nothing is lost by skipping one).
import { PassThrough } from 'node:stream';
import { apiError, LIVE_MIN_INTERVAL_MS } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { LiveFrame, LiveViewer } from '../../services/live.service.ts';

const runParams = z.object({ id: z.string().min(1).describe('run id or share slug') });
/** Bytes a viewer may have unread (past one frame) before it is cut. */
const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

const routes: FastifyPluginAsyncZod = async (app) => {
  const { services, live } = app;

  app.get(
    '/runs/:id/live',
    {
      // Compression would hold events back in its buffers.
      compress: false,
      schema: {
        tags: ['runs'],
        description: `The run as it happens, as Server-Sent Events (text/event-stream). Each \`state\` event's data is a whole \`runLive\` object (the run page's views, read by the same code as GET /runs/{id}, /changes, /changes/{c}/propagation, /timeline, /series, /results and /results/stages with their defaults, with the same exactness marks); its id is the run's data version. The current state comes first, then a new one when the run's data changes, at most one per ${LIVE_MIN_INTERVAL_MS} ms. The last event is \`end\`: the state after the run's finish, equal to what the stored views answer; then the stream closes. \`Last-Event-ID\` (sent by EventSource when it reconnects) skips the state the client has; a finished run whose end the client has answers 204 (which stops EventSource). Comment lines keep an idle stream open.`,
        params: runParams,
        headers: z.object({
          'last-event-id': z
            .string()
            .optional()
            .describe('the id of the last event the client has (a data version)'),
        }),
        response: {
          200: {
            description: 'the run as Server-Sent Events',
            content: { 'text/event-stream': { schema: z.string() } },
          },
          204: z.null().describe('the run finished and the client has its end event'),
          404: apiError,
        },
      },
    },
    async (request, reply) => {
      const run = await services.runs.get(request.params.id);
      const header = request.headers['last-event-id'];
      const lastId = header !== undefined && /^\d{1,15}$/.test(header) ? Number(header) : undefined;
      if (run.status !== 'running' && lastId !== undefined) {
        const mark = await services.live.mark(run.id);
        if (mark && mark.version === lastId) return reply.code(204).send(null);
      }
      const out = new PassThrough();
      let leave = () => {};
      const end = () => {
        leave();
        out.end();
      };
      const viewer: LiveViewer = {
        lastId,
        send(frame: LiveFrame) {
          if (out.destroyed || out.writableEnded) return;
          if (
            reply.raw.writableLength + out.readableLength >
            MAX_UNREAD_BYTES + frame.text.length
          ) {
            request.log.info(`live viewer of run ${run.id} fell behind; cut`);
            leave();
            out.destroy();
            return;
          }
          out.write(frame.text);
          if (frame.kind === 'end') end();
        },
        ping() {
          if (!out.destroyed && !out.writableEnded) out.write(': keep-alive\n\n');
        },
        close: end,
      };
      reply.raw.on('close', () => {
        leave();
        out.destroy();
      });
      // The reconnection delay EventSource waits after a drop.
      out.write('retry: 1000\n\n');
      leave = live.join(run.id, viewer);
      return (
        reply
          .type('text/event-stream; charset=utf-8')
          .header('cache-control', 'no-cache, no-transform')
          .header('x-accel-buffering', 'no')
          // A stream bypasses the response schema (text/event-stream, not JSON).
          .send(out as never)
      );
    },
  );
};
export default routes;
