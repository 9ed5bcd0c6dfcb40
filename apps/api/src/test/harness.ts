// Integration-test harness: the real app on a real socket, against every database we
// support: the embedded one always, and the server at DATABASE_URL when it is set.
import type { AddressInfo } from 'node:net';
import { type Database, openDatabase } from '@meshbench/db';
import { apiError, ingestResult, run } from '@meshbench/schema';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import type { z } from 'zod';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/env.ts';
import { checkAnswer } from './answer.ts';
import { openEmbeddedCopy } from './embedded-image.ts';
import { startPgbouncer } from './pgbouncer.ts';

export interface Backend {
  name: 'embedded' | 'postgres' | 'pgbouncer';
  open: () => Promise<Database>;
}

/**
 * The databases a suite runs on, named by MESHBENCH_TEST_BACKENDS (comma-separated):
 * `embedded`; `postgres`, DATABASE_URL directly; `pgbouncer`, DATABASE_URL through a
 * pgbouncer in transaction pooling mode that the suite starts and stops. Unset: embedded,
 * and postgres when DATABASE_URL is set.
 */
function chosenBackends(): Backend[] {
  const url = process.env.DATABASE_URL;
  const named = process.env.MESHBENCH_TEST_BACKENDS?.split(',').map((n) => n.trim());
  const all: Record<Backend['name'], Backend['open']> = {
    embedded: openEmbeddedCopy,
    postgres: () => openDatabase({ url, poolSize: 4 }),
    pgbouncer: async () => {
      const bouncer = await startPgbouncer(url as string);
      const database = await openDatabase({ url: bouncer.url, poolSize: 4 });
      return {
        ...database,
        async close() {
          await database.close();
          await bouncer.stop();
        },
      };
    },
  };
  const names = named ?? ['embedded', ...(url ? ['postgres'] : [])];
  return names.map((name) => {
    if (!(name in all))
      throw new Error(`MESHBENCH_TEST_BACKENDS: ${name}? expected embedded, postgres, pgbouncer`);
    if (name !== 'embedded' && !url)
      throw new Error(`MESHBENCH_TEST_BACKENDS names ${name}: set DATABASE_URL`);
    return { name: name as Backend['name'], open: all[name as Backend['name']] };
  });
}

export const backends: Backend[] = chosenBackends();

/** The admin token of every test server unless a suite sets its own. */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface Answer<T> {
  status: number;
  body: T;
}

/**
 * A JSON call. Given the route's schema from @meshbench/schema, a 2xx body must match it
 * and a non-2xx body must match apiError, or the test fails naming the field at fault; the
 * body comes back as the API sent it (not stripped), so an exact toEqual still sees all of it.
 * Without a schema the body is unknown: a test types an answer only by its route's schema.
 */
export interface JsonCall {
  <S extends z.ZodType>(
    path: string,
    init: RequestInit | undefined,
    schema: S,
  ): Promise<Answer<z.output<S>>>;
  (path: string, init?: RequestInit): Promise<Answer<unknown>>;
}

export interface TestServer {
  app: FastifyInstance;
  url: string;
  /** The admin token the server was started with; api() and json() send it. */
  token: string;
  api: (path: string, init?: RequestInit) => Promise<Response>;
  json: JsonCall;
  /** The StatsD listener's ports, when the server was started with one. */
  udpPort?: number;
  tcpPort?: number;
  /** As json(), with no token at all. */
  anonJson: JsonCall;
}

/** Starts the app for the current describe block; env overrides the config. */
export function useServer(
  backend: Backend,
  env: Record<string, string> = {},
  /** statsd: the StatsD listener on free UDP and TCP ports, read back into the server. */
  options: { webRoot?: string; statsd?: boolean } = {},
): TestServer {
  const server = {} as TestServer;
  let database: Database;
  beforeAll(async () => {
    database = await backend.open();
    const config = loadConfig({
      ...(options.statsd ? {} : { STATSD_PORT: '0' }),
      MESHBENCH_LOG_LEVEL: 'silent',
      MESHBENCH_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      // No recheck in the background: it would look at other test files' runs in the shared
      // database. A test calls services.history.recheckAlerts for its own project.
      MESHBENCH_ALERTS_RECHECK_MS: '0',
      // Nor retention: a test sweeps its own project (services.retention.sweep).
      MESHBENCH_RETENTION_MS: '0',
      ...env,
    });
    server.token = config.adminToken as string;
    server.app = await buildApp(config, {
      database,
      logger: false,
      inMemory: true,
      webRoot: options.webRoot,
      ...(options.statsd ? { statsdPort: 'ephemeral' as const } : {}),
    });
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.app.server.address() as AddressInfo;
    server.url = `http://127.0.0.1:${port}`;
    if (options.statsd) {
      server.udpPort = server.app.statsd.udpPort as number;
      server.tcpPort = server.app.statsd.tcpPort as number;
    }
    const withToken = (init: RequestInit = {}): RequestInit => {
      const headers = new Headers(init.headers);
      if (!headers.has('authorization')) headers.set('authorization', `Bearer ${server.token}`);
      return { ...init, headers };
    };
    const asJson = async (path: string, response: Response, schema?: z.ZodType) => {
      const text = await response.text();
      const body = text ? JSON.parse(text) : null;
      if (schema) checkAnswer(path, response.status, body, response.ok ? schema : apiError);
      return { status: response.status, body: body as never };
    };
    server.api = (path, init) => fetch(`${server.url}/api/v1${path}`, withToken(init));
    server.json = async (path: string, init?: RequestInit, schema?: z.ZodType) =>
      asJson(path, await server.api(path, init), schema);
    server.anonJson = async (path: string, init?: RequestInit, schema?: z.ZodType) =>
      asJson(path, await fetch(`${server.url}/api/v1${path}`, init), schema);
  });
  afterAll(async () => {
    await server.app?.close();
    await database?.close();
  });
  return server;
}

export const jsonBody = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

export const ndjson = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n');

let counter = 0;
/** A run of its own for each test: tests never share rows. */
export async function createRun(server: TestServer, over: Record<string, unknown> = {}) {
  counter++;
  const { status, body } = await server.json(
    '/runs',
    jsonBody({
      benchmark: 'int-test',
      scenario: `case-${process.pid}-${counter}-${Date.now()}`,
      mesh: { name: 'consul', version: '1.9.5' },
      ...over,
    }),
    run,
  );
  if (status !== 201) throw new Error(`create run: ${status} ${JSON.stringify(body)}`);
  return body;
}

/** Posts an NDJSON batch; a test that reads a refusal passes apiError as the schema. */
export function postEvents<S extends z.ZodType = typeof ingestResult>(
  server: TestServer,
  runId: string,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
  schema: S = ingestResult as z.ZodType as S,
) {
  return server.json(
    `/runs/${runId}/events`,
    { method: 'POST', headers: { 'content-type': 'application/x-ndjson', ...headers }, body },
    schema,
  );
}
