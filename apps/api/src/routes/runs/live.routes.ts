// GET /runs/{id}/live: the run as Server-Sent Events while it runs (docs/live.md). The viewer
// joins the run's one watch in this process; what it has not read yet waits in its socket,
// and a viewer that falls far behind is cut (it reconnects with Last-Event-ID and gets the
// latest state: states are whole, so nothing is lost by skipping one).
import { PassThrough } from 'node:stream';
import { liveRoutes as c } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { LiveFrame, LiveViewer } from '../../services/live.service.ts';
import { fromContract } from '../contract-route.ts';

/** Bytes a viewer may have unread (past one frame) before it is cut. */
const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

const routes: FastifyPluginAsyncZod = async (app) => {
  const { services, live } = app;

  app.route({
    ...fromContract(c.live),
    // Compression would hold events back in its buffers.
    compress: false,
    handler: async (request, reply) => {
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
  });
};
export default routes;
