// Starts the built API as its own process, so its memory can be read from /proc.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The admin token of the API a bench starts; its writes send it. */
export const BENCH_TOKEN = 'bench-admin-token-0123456789';
export const AUTH = { authorization: `Bearer ${BENCH_TOKEN}` };

/** Ports this process handed out: an API started on one may not listen on it yet. */
const taken = new Set<number>();

/** Whether `port` (0: any) can be listened on; the port listened on, or undefined. */
function tryPort(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(port, '127.0.0.1', () => {
      const { port: bound } = srv.address() as { port: number };
      srv.close(() => resolve(bound));
    });
    srv.on('error', () => resolve(undefined));
  });
}

/**
 * A port free now: the first of BENCH_PORTS (e.g. "7200-7299", on a machine shared by
 * several people each given a range) not in use, else one the system picks.
 */
async function freePort(): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.BENCH_PORTS ?? '');
  if (range) {
    for (let p = Number(range[1]); p <= Number(range[2]); p++) {
      if (taken.has(p)) continue;
      const port = await tryPort(p);
      if (port !== undefined) {
        taken.add(port);
        return port;
      }
    }
    throw new Error(`no free port in BENCH_PORTS ${process.env.BENCH_PORTS}`);
  }
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface ApiProcess {
  url: string;
  pid: number;
  /** Peak resident set size so far (VmHWM), MiB. */
  peakRssMiB(): number;
  stop(): Promise<void>;
}

/** Starts the API with `env` over this process's; a variable given as undefined is unset. */
export async function startApi(env: Record<string, string | undefined>): Promise<ApiProcess> {
  // BENCH_API_ENTRY: another build of the API (e.g. main's, for a figure before a change).
  const entry =
    process.env.BENCH_API_ENTRY ??
    fileURLToPath(new URL('../../apps/api/dist/server.js', import.meta.url));
  // A port the caller names (PORT in env) is the one the API listens on and is polled at.
  // BENCH_API_PORT: a port to use when the caller names none (a range given to one engineer).
  const port = env.PORT
    ? Number(env.PORT)
    : process.env.BENCH_API_PORT
      ? Number(process.env.BENCH_API_PORT)
      : await freePort();
  // BENCH_API_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the API under a bench.
  const nodeArgs = (process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    HOST: '127.0.0.1',
    STATSD_PORT: '0',
    MESHBENCH_DEMO: '0',
    MESHBENCH_LOG_LEVEL: process.env.MESHBENCH_LOG_LEVEL ?? 'warn',
    MESHBENCH_ADMIN_TOKEN: BENCH_TOKEN,
    ...env,
    // The port chosen above, last: a caller's `PORT: process.env.PORT` that is unset would
    // otherwise unset it, and the API would listen on its default while this polls another.
    PORT: String(port),
  };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, entry], {
    env: childEnv,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  // Three minutes (BENCH_API_START_MS): on a shared machine (load 30+ on 2 cores) a fresh
  // database's migrations took over a minute.
  const startMs = Number(process.env.BENCH_API_START_MS ?? 180_000);
  const deadline = Date.now() + startMs;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the API exited with ${child.exitCode}; is it built (pnpm build)?`);
    try {
      if ((await fetch(`${url}/api/v1/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline) {
      // Not left behind on its port.
      child.kill('SIGKILL');
      throw new Error(`the API did not start within ${startMs / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: child.pid as number,
    peakRssMiB() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return kb / 1024;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
