// Wires repositories into services once; routes reach services through app.services.
import fp from 'fastify-plugin';
import { eventsRepository } from '../repositories/events.repository.ts';
import { gatesRepository } from '../repositories/gates.repository.ts';
import { projectsRepository } from '../repositories/projects.repository.ts';
import { propagationRepository } from '../repositories/propagation.repository.ts';
import { reportsRepository } from '../repositories/reports.repository.ts';
import { resultsRepository } from '../repositories/results.repository.ts';
import { runsRepository } from '../repositories/runs.repository.ts';
import { tailRepository } from '../repositories/tail.repository.ts';
import { exportService } from '../services/export.service.ts';
import { gatesService } from '../services/gates.service.ts';
import { ingestService } from '../services/ingest.service.ts';
import { metricsServices } from '../services/metrics.wiring.ts';
import { projectsService } from '../services/projects.service.ts';
import { propagationService } from '../services/propagation.service.ts';
import { reportsService } from '../services/reports.service.ts';
import { resultsService } from '../services/results.service.ts';
import { runsService } from '../services/runs.service.ts';
import { tailService } from '../services/tail.service.ts';

function build(
  database: import('@meshbench/db').Database,
  maxBatchBytes: number,
  maxConcurrentBatches: number,
  adminToken: string | undefined,
  warn: (error: unknown, message: string) => void,
  debug: (fields: Record<string, unknown>, message: string) => void,
) {
  const runs = runsRepository(database.db);
  const propagation = propagationRepository(database.db);
  const events = eventsRepository(database);
  const projects = projectsService({ projects: projectsRepository(database.db), adminToken });
  const services = {
    projects,
    runs: runsService({ runs, projects }),
    ingest: ingestService({
      runs,
      events,
      maxBatchBytes,
      maxConcurrentBatches,
      // One connection: a batch is read whole before its transaction holds it.
      readBeforeTransaction: database.kind === 'embedded',
      warn,
      debug,
    }),
    export: exportService({ runs, events }),
    propagation: propagationService({ runs, propagation }),
    results: resultsService({ runs, results: resultsRepository(database.db) }),
    tail: tailService({ runs, propagation, tail: tailRepository(database) }),
    ...metricsServices(database, runs),
    /** Whether the database has no runs yet (first start). */
    isEmpty: () => runs.isEmpty(),
  };
  return {
    ...services,
    reports: reportsService({ reports: reportsRepository(database.db), ...services }),
    gates: gatesService({
      gates: gatesRepository(database.db),
      runs,
      projects,
      propagation: services.propagation,
    }),
  };
}
export type Services = ReturnType<typeof build>;

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

export default fp<{
  maxBatchBytes: number;
  maxConcurrentBatches: number;
  adminToken: string | undefined;
}>(
  async (app, opts) => {
    app.decorate(
      'services',
      build(
        app.database,
        opts.maxBatchBytes,
        opts.maxConcurrentBatches,
        opts.adminToken,
        (err, message) => app.log.warn({ err }, message),
        (fields, message) => app.log.debug(fields, message),
      ),
    );
  },
  { name: 'services', dependencies: ['database'] },
);
