// GET /runs/{id}/changes/{changeId}/perfetto: a change as a Perfetto trace, streamed.
import { apiError } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { gzippedWhenAccepted, streamedBody } from '../stream-reply.ts';

const routes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/runs/:id/changes/:changeId/perfetto',
    {
      schema: {
        tags: ['propagation'],
        description:
          "A change's propagation as a Perfetto trace (protobuf `perfetto.protos.Trace` of TrackEvent packets; open it at ui.perfetto.dev): a root track for the change, one track per node under it (proxies without a node under `unknown node`), and per proxy a slice from the change to its first observation at each stage (`<proxy> <stage>`; observations without a stage are `applied`), nested longest first. A proxy seen before the change has a slice from that observation to the change, named `... (before change)`. Timestamps are Unix epoch nanoseconds, exact to the microsecond the database keeps. Streamed from one snapshot; gzip-encoded (`Content-Encoding`) when the client accepts it.",
        params: z.object({
          id: z.string().min(1).describe('run id or share slug'),
          changeId: z.string().min(1),
        }),
        response: { 404: apiError },
      },
    },
    async (request, reply) => {
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
  );
};

export default routes;
