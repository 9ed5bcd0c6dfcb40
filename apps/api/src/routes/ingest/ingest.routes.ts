// What this replica has received on its ingest paths: the StatsD listener's and OTLP
// receiver's counters, and the upload paths' (events, result files).
import { ingestStats, statsdStats } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Principal } from '../../domain/access.ts';

const routes: FastifyPluginAsyncZod = async (app) => {
  const { services } = app;

  /**
   * The StatsD listener's counters, with the OTLP receiver's beside them. StatsD has no
   * authentication, so its last malformed line may be anyone's: only the admin sees it.
   */
  const statsdNow = (principal: Principal) => {
    const stats = app.statsd.stats();
    return {
      ...stats,
      lastMalformed: principal.kind === 'admin' ? stats.lastMalformed : null,
      otlp: { ...services.otlp.counters },
    };
  };

  app.get(
    '/statsd/stats',
    {
      schema: {
        tags: ['metrics'],
        description:
          "This replica's StatsD listener and OTLP receiver counters: lines, malformed lines, events, unmatched aggregates, rows written. The last malformed line is shown to the admin token only (StatsD lines carry no project).",
        response: { 200: statsdStats },
      },
    },
    async (request) => statsdNow(request.principal),
  );

  app.get(
    '/ingest/stats',
    {
      schema: {
        tags: ['metrics'],
        description:
          "What this replica has received on every ingest path since it started: StatsD and OTLP (as /statsd/stats), Prometheus remote write, OTLP logs, and the events API's and result uploads' requests stored, retried and rejected, with the last rejection's message. Messages are scoped to the caller: the admin token sees the replica's last rejection and malformed line, a project's token its own project's last rejection, no token none.",
        response: { 200: ingestStats },
      },
    },
    async (request) => {
      const { principal } = request;
      return {
        messagesShown:
          principal.kind === 'admin' ? 'all' : principal.kind === 'project' ? 'project' : 'none',
        statsd: statsdNow(principal),
        prometheus: { ...services.prometheusWrite.counters },
        otlpLogs: { ...services.otlpLogs.counters },
        events: services.uploads.events.seenBy(principal),
        results: services.uploads.results.seenBy(principal),
      } as const;
    },
  );
};
export default routes;
