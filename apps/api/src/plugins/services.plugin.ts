// Wires repositories into services once; routes reach services through app.services.
import fp from 'fastify-plugin';
import { eventsRepository } from '../repositories/events.repository.ts';
import { propagationRepository } from '../repositories/propagation.repository.ts';
import { resultsRepository } from '../repositories/results.repository.ts';
import { runsRepository } from '../repositories/runs.repository.ts';
import { tailRepository } from '../repositories/tail.repository.ts';
import { ingestService } from '../services/ingest.service.ts';
import { propagationService } from '../services/propagation.service.ts';
import { resultsService } from '../services/results.service.ts';
import { runsService } from '../services/runs.service.ts';
import { tailService } from '../services/tail.service.ts';

function build(database: import('@meshbench/db').Database, maxBatchBytes: number) {
  const runs = runsRepository(database.db);
  return {
    runs: runsService({ runs }),
    ingest: ingestService({ runs, events: eventsRepository(database), maxBatchBytes }),
    propagation: propagationService({ runs, propagation: propagationRepository(database.db) }),
    results: resultsService({ runs, results: resultsRepository(database.db) }),
    tail: tailService({
      runs,
      propagation: propagationRepository(database.db),
      tail: tailRepository(database.db),
    }),
    /** Whether the database has no runs yet (first start). */
    isEmpty: () => runs.isEmpty(),
  };
}
export type Services = ReturnType<typeof build>;

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

export default fp<{ maxBatchBytes: number }>(
  async (app, opts) => {
    app.decorate('services', build(app.database, opts.maxBatchBytes));
  },
  { name: 'services', dependencies: ['database'] },
);
