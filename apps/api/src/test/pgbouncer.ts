// Debian's pgbouncer in front of a test Postgres, in transaction pooling mode (the mode
// operators run): its own port, config and directory, stopped by its PID. The config is
// deploy/pgbouncer.ini's settings, pointed at the server under test.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './api-process.ts';

export const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => existsSync(p));

export interface Pgbouncer {
  /** DATABASE_URL through the pooler: the same user and database, pgbouncer's port. */
  url: string;
  port: number;
  pid: number;
  /** What pgbouncer logged (its warnings name refused startup parameters). */
  log(): string;
  stop(): Promise<void>;
}

const started = new Set<ChildProcess>();
// A test runner that ends without stopping one (a crash) still stops it, by its PID.
process.once('exit', () => {
  for (const child of started) if (child.pid) process.kill(child.pid, 'SIGTERM');
});

/**
 * Starts pgbouncer in front of `upstreamUrl`'s server; `database` of the returned url is the
 * upstream's. pgbouncer refuses to run as root, so as root it runs as `nobody`.
 */
export async function startPgbouncer(
  upstreamUrl: string,
  settings: Record<string, string | number> = {},
): Promise<Pgbouncer> {
  if (!PGBOUNCER)
    throw new Error('pgbouncer is not installed (apt-get install pgbouncer; .ci/run does)');
  const upstream = new URL(upstreamUrl);
  const user = decodeURIComponent(upstream.username || 'postgres');
  const password = decodeURIComponent(upstream.password);
  const database = upstream.pathname.slice(1);
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'meshbench-pgbouncer-'));
    chmodSync(dir, 0o755); // readable by `nobody`
    const config = join(dir, 'pgbouncer.ini');
    const quote = (v: string) => `'${v.replace(/'/g, "\\'")}'`;
    const lines = [
      '[databases]',
      `* = host=${upstream.hostname} port=${upstream.port || 5432} user=${quote(user)}${password ? ` password=${quote(password)}` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      // The test server trusts local connections; pgbouncer logs in as the [databases] user.
      'auth_type = any',
      'pool_mode = transaction',
      'max_client_conn = 500',
      'default_pool_size = 20',
      ...Object.entries({ ...settings }).map(([k, v]) => `${k} = ${v}`),
    ];
    writeFileSync(config, `${lines.join('\n')}\n`, { mode: 0o644 });
    const asRoot = process.getuid?.() === 0;
    const child = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'nobody'] : []), config], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.add(child);
    let said = '';
    const keep = (chunk: Buffer) => {
      said = (said + chunk.toString('utf8')).slice(-65_536);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid)
        process.kill(child.pid, 'SIGTERM');
      await exited;
      started.delete(child);
      rmSync(dir, { recursive: true, force: true });
    };
    // Up when it says it listens on this port (another process may hold a port found free).
    for (let i = 0; i < 100 && child.exitCode === null; i++) {
      if (said.includes(`listening on 127.0.0.1:${port}`) && (await accepts(port))) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    if (child.exitCode === null && said.includes(`listening on 127.0.0.1:${port}`)) {
      const url = new URL(upstreamUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      url.pathname = `/${database}`;
      return { url: url.toString(), port, pid: child.pid as number, log: () => said, stop };
    }
    await stop();
    if (attempt >= 3) throw new Error(`pgbouncer did not start:\n${said}`);
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
