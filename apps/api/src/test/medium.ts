// The medium tier's harness (`*.medium.test.ts`): services and repositories called directly,
// without HTTP, on every database a suite runs on (the embedded one always, DATABASE_URL's
// when set), with factories that make what a test needs through the services' own paths.
import type { Database } from '@meshbench/db';
import { migrateDatabase } from '@meshbench/db';
import type { CreateRunBody, Run } from '@meshbench/schema';
import { afterAll, beforeAll } from 'vitest';
import type { Principal } from '../domain/access.ts';
import { buildServices, type Services } from '../plugins/services.plugin.ts';
import { type Backend, backends } from './harness.ts';

export { backends };

export const ADMIN: Principal = { kind: 'admin' };

/** The options of a test server's services, for a database without HTTP. */
const OPTIONS: Parameters<typeof buildServices>[1] = {
  maxBatchBytes: 1_000_000,
  maxConcurrentBatches: 8,
  adminToken: 'medium-admin-token-0123456789',
  maxConcurrentOtlp: 4,
  otlpMaxBytes: 1_000_000,
  unmatchedRetentionMs: 60_000,
  unmatchedMaxPoints: 10_000,
  alertsRecheckMs: 0,
};

export interface MediumContext {
  database: Database;
  services: Services;
}

/**
 * Opens and migrates the backend's database and builds the services on it, once for the
 * suite; the returned object is filled in by beforeAll.
 */
export function useServices(backend: Backend): MediumContext {
  const context = {} as MediumContext;
  beforeAll(async () => {
    context.database = await backend.open();
    await migrateDatabase(context.database);
    context.services = buildServices(
      context.database,
      OPTIONS,
      () => {},
      () => {},
    );
  });
  afterAll(async () => context.database?.close());
  return context;
}

let counter = 0;

/** A run of its own (a scenario no other test uses) in the default project. */
export function newRun(services: Services, over: Partial<CreateRunBody> = {}): Promise<Run> {
  counter++;
  return services.runs.create(
    {
      benchmark: 'medium-test',
      scenario: `case-${process.pid}-${counter}-${Date.now()}`,
      mesh: { name: 'consul', version: '1.9.5' },
      ...over,
    } as CreateRunBody,
    ADMIN,
  );
}

/** Posts one NDJSON batch of events to the run through the ingest service. */
export async function postEvents(services: Services, runId: string, events: unknown[]) {
  const text = events.map((e) => JSON.stringify(e)).join('\n');
  return services.ingest.ingest(runId, {
    body: (async function* () {
      yield Buffer.from(text);
    })(),
    format: 'ndjson',
    digest: () => text,
  });
}
