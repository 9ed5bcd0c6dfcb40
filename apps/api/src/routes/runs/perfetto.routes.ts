// GET /runs/{id}/changes/{changeId}/perfetto: a change as a Perfetto trace, streamed.
import { perfettoRoutes as c } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { fromContract } from '../contract-route.ts';
import { gzippedWhenAccepted, streamedBody } from '../stream-reply.ts';

const routes: FastifyPluginAsyncZod = async (app) => {
  app.route({
    ...fromContract(c.trace),
    handler: async (request, reply) => {
      const { id, changeId } = request.params;
      const { run, stream } = await app.services.export.changeTrace(id, changeId);
      const out = streamedBody<Buffer>(request, reply, stream, 'perfetto export');
      // The change id is the user's: only safe characters go into the file name.
      const file = `run-${run.id}-change-${changeId.replace(/[^\w.-]+/g, '_')}.perfetto-trace`;
      reply
        .type('application/octet-stream')
        .header('content-disposition', `attachment; filename="${file}"`);
      // Track descriptors and timestamps repeat: gzip sends a fifth of the bytes.
      return reply.send(gzippedWhenAccepted(request, reply, out) as never); // a stream, as it is
    },
  });
};

export default routes;
