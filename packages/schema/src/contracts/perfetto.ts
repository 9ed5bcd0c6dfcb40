// The perfetto group: a change as a Perfetto trace, streamed (a link, not a parsed call).
import { z } from 'zod';
import { defineRoutes } from '../contract.ts';
import { apiError } from '../errors.ts';

export const perfettoRoutes = defineRoutes({
  trace: {
    method: 'GET',
    path: '/runs/:id/changes/:changeId/perfetto',
    tags: ['propagation'],
    summary: "A change's propagation as a Perfetto trace",
    description:
      "A change's propagation as a Perfetto trace (protobuf `perfetto.protos.Trace` of TrackEvent packets; open it at ui.perfetto.dev): a root track for the change, one track per node under it (proxies without a node under `unknown node`), and per proxy a slice from the change to its first observation at each stage (`<proxy> <stage>`; observations without a stage are `applied`), nested longest first. A proxy seen before the change has a slice from that observation to the change, named `... (before change)`. Timestamps are Unix epoch nanoseconds, exact to the microsecond the database keeps. Streamed from one snapshot; gzip-encoded (`Content-Encoding`) when the client accepts it.",
    params: z.object({
      id: z.string().min(1).describe('run id or share slug'),
      changeId: z.string().min(1),
    }),
    responses: { 404: apiError },
  },
});
