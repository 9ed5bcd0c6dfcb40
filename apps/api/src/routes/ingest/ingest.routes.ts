// What this replica has received on its ingest paths: the StatsD listener's and OTLP
// receiver's counters, and the upload paths' (events, result files).
import { ingestRoutes as c } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Principal } from '../../domain/access.ts';
import { fromContract } from '../contract-route.ts';

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

  app.route({
    ...fromContract(c.statsdStats),
    handler: async (request) => statsdNow(request.principal),
  });

  app.route({
    ...fromContract(c.ingestStats),
    handler: async (request) => {
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
  });
};
export default routes;
