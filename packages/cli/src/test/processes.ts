// The built `meshbench` binary and the built API, each as a child process, for the CLI's
// integration and fault tests: on the embedded database always, on Postgres when
// DATABASE_URL is set.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Not the test runner's own MESHBENCH_* variables: the server refuses unknown ones. */
const inherited = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.startsWith('MESHBENCH_')),
);

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const API = fileURLToPath(new URL('../../../../apps/api/dist/server.js', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('../../../../fixtures/public/', import.meta.url));

export const ADMIN = 'cli-test-admin-token-0123456789';

export const backends = [
  {
    name: 'embedded',
    env: () => ({ MESHBENCH_DATA_DIR: mkdtempSync(join(tmpdir(), 'meshbench-cli-')) }),
  },
  ...(process.env.DATABASE_URL
    ? [{ name: 'postgres', env: () => ({ DATABASE_URL: process.env.DATABASE_URL as string }) }]
    : []),
];

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

export interface Api {
  url: string;
  /** The last 64 KiB the API wrote to stderr and stdout (warnings and errors), to show on a failure. */
  log(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
  start(): Promise<void>;
}

export async function api(env: Record<string, string>): Promise<Api> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let log = '';
  const keep = (chunk: Buffer) => {
    log = (log + String(chunk)).slice(-65_536);
  };
  const self: Api = {
    url,
    log: () => log,
    async start() {
      child = spawn(process.execPath, [API], {
        env: {
          ...inherited,
          ...env,
          PORT: String(port),
          HOST: '127.0.0.1',
          STATSD_PORT: '0',
          MESHBENCH_DEMO: '0',
          MESHBENCH_LOG_LEVEL: 'warn',
          MESHBENCH_ADMIN_TOKEN: ADMIN,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      for (let i = 0; i < 300; i++) {
        try {
          if ((await fetch(`${url}/api/v1/health`)).ok) return;
        } catch {}
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the API did not start');
    },
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (!child || child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
  await self.start();
  return self;
}

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export function cli(
  args: string[],
  env: Record<string, string> = {},
  onStderr?: (line: string, child: ChildProcess) => void,
): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      for (const line of String(d).split('\n')) if (line && onStderr) onStderr(line, child);
    });
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

export const T0 = Date.parse('2026-02-01T10:00:00Z');
/** NDJSON: a change and one observation per proxy at latency(i) ms, in whole ms. */
export function eventsFile(
  proxies: number,
  latency: (i: number) => number,
  expected = proxies,
): string {
  const lines = [
    JSON.stringify({
      type: 'change',
      id: 'c1',
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: new Date(T0).toISOString(),
      expected,
    }),
  ];
  for (let i = 0; i < proxies; i++) {
    lines.push(
      JSON.stringify({
        type: 'observation',
        change: 'c1',
        proxy: `p${i}`,
        node: `n${i % 50}`,
        at: new Date(T0 + Math.floor(latency(i))).toISOString(),
      }),
    );
  }
  const file = join(mkdtempSync(join(tmpdir(), 'meshbench-events-')), 'events.ndjson');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
