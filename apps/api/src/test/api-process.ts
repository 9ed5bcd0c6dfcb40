// The built API (dist/server.js) as a process of its own, for what only a process shows:
// signals, exit codes, a restart on the same data.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { checkAnswer } from './answer.ts';

const SERVER = fileURLToPath(new URL('../../dist/server.js', import.meta.url));
export const PROCESS_ADMIN_TOKEN = 'faults-admin-token-0123456789';

/** The databases a process can run on: a fresh embedded one, and DATABASE_URL when set. */
export const processBackends = [
  {
    name: 'embedded',
    // DATABASE_URL '' drops the runner's own (set when the suite also runs on Postgres), so
    // that this backend is the embedded database and not Postgres under another name.
    env: () => ({
      MESHBENCH_DATA_DIR: mkdtempSync(join(tmpdir(), 'meshbench-faults-')),
      DATABASE_URL: '',
    }),
  },
  ...(process.env.DATABASE_URL
    ? [{ name: 'postgres', env: () => ({ DATABASE_URL: process.env.DATABASE_URL as string }) }]
    : []),
];

/** Every API process started here that has not exited yet, stopped by stopApiProcesses. */
const running = new Set<ChildProcess>();
// A runner that ends without stopping one (a crash, a timed-out test) still stops it by its PID.
process.once('exit', () => {
  for (const child of running) {
    try {
      if (child.pid) process.kill(child.pid, 'SIGKILL');
    } catch {} // gone already
  }
});

/**
 * Stops, by PID, every API process started here that still runs: what a test that failed or
 * timed out before its own stop left behind (a suite's afterEach). SIGKILL: a test that wants
 * a graceful stop signals its own process and waits for it before this runs.
 */
export async function stopApiProcesses(): Promise<void> {
  const left = [...running];
  await Promise.all(
    left.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          if (child.pid) process.kill(child.pid, 'SIGKILL');
        }),
    ),
  );
  for (const child of left) running.delete(child);
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code (or signal) when the process ends. */
  exited: Promise<number | NodeJS.Signals>;
  /** The last 16 KiB the process wrote (its log). */
  output(): string;
  /** An answer's body; with the route's schema, checked against it (see answer.ts). */
  json<S extends z.ZodType>(path: string, init: RequestInit, schema: S): Promise<z.output<S>>;
  json(path: string, init?: RequestInit): Promise<unknown>;
}

/**
 * Starts the API and waits until its health check answers. `attempts`: 1 when the test is
 * whether the first start comes up (a start that dies is otherwise tried again).
 */
export async function startApiProcess(
  env: Record<string, string>,
  attempts = 3,
): Promise<ApiProcess> {
  // A port found free can be taken by another process before the API binds it (the machine
  // runs other suites): then the API exits and another server may answer the health check.
  // Such a start is tried again on another port.
  for (let attempt = 1; ; attempt++) {
    let started: ApiProcess;
    try {
      started = await startOnce(env);
    } catch (error) {
      if (attempt >= attempts) throw error;
      continue;
    }
    await new Promise((r) => setTimeout(r, 200));
    if (started.child.exitCode === null) return started;
    if (attempt >= attempts) throw new Error(`the API exited with ${started.child.exitCode}`);
  }
}

async function startOnce(env: Record<string, string>): Promise<ApiProcess> {
  // A PORT given: a restart that senders must find where they left it.
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Not the test runner's own MESHBENCH_* variables (MESHBENCH_TEST_TIER): the server
  // refuses variables it does not know.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('MESHBENCH_')),
  );
  const childEnv: Record<string, string> = {
    ...inherited,
    PORT: String(port),
    HOST: '127.0.0.1',
    STATSD_PORT: '0',
    MESHBENCH_DEMO: '0',
    // info: the server's "Server listening at" line, which proves this process bound it.
    MESHBENCH_LOG_LEVEL: 'info',
    MESHBENCH_ADMIN_TOKEN: PROCESS_ADMIN_TOKEN,
    // Stopped at once unless a test is about the drain: no balancer waits to see readiness.
    MESHBENCH_DRAIN_MS: '0',
    ...env,
  };
  if (childEnv.DATABASE_URL === '') delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, [SERVER], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  // Ready when this process says it listens on the port and the health check answers: a
  // health check alone can be answered by another process that took the port first (this
  // one then exits with EADDRINUSE, perhaps only after its migrations, and the test would
  // talk to a stranger until it went away).
  const listening = `listening at ${url}`;
  let heard = false;
  // The server's last words (its log, a crash's stack), printed if it exits with an error: a
  // test that finds it gone then says why.
  let said = '';
  const keep = (chunk: Buffer) => {
    said = (said + chunk.toString('utf8')).slice(-16_384);
    heard ||= said.includes(listening);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | NodeJS.Signals>((resolve) =>
    child.once('exit', (code, signal) => {
      if (code !== null && code !== 0)
        console.error(`the API (port ${port}) exited with ${code}; its last output:\n${said}`);
      resolve(code ?? (signal as NodeJS.Signals));
    }),
  );
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}`);
    try {
      if (heard && (await fetch(`${url}/api/v1/health`)).ok) break;
    } catch {}
    if (i > 600) {
      // Not left running: the caller gets no handle to stop it with.
      if (child.pid) process.kill(child.pid, 'SIGKILL');
      throw new Error('the API did not start in 60 s; is it built?');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    exited,
    output: () => said,
    async json(path: string, init: RequestInit = {}, schema?: z.ZodType) {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${PROCESS_ADMIN_TOKEN}`);
      if (init.body && !headers.has('content-type'))
        headers.set('content-type', 'application/json');
      const response = await fetch(`${url}/api/v1${path}`, { ...init, headers });
      const text = await response.text();
      if (!response.ok)
        throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${text}`);
      const body = JSON.parse(text);
      if (schema) checkAnswer(path, response.status, body, schema);
      return body;
    },
  };
}
