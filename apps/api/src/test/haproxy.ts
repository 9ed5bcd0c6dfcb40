// Debian's haproxy (HTTP) in front of API replicas: deploy/haproxy.cfg's settings on a port
// and config of its own, the replicas' addresses filled in; stopped by its PID.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './api-process.ts';

export const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p));

export interface Haproxy {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) if (child.pid) process.kill(child.pid, 'SIGTERM');
});

/** Starts haproxy balancing over `replicas` (their base URLs, http://127.0.0.1:port). */
export async function startHaproxy(replicas: string[]): Promise<Haproxy> {
  if (!HAPROXY) throw new Error('haproxy is not installed (apt-get install haproxy; .ci/run does)');
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'meshbench-haproxy-'));
    const config = join(dir, 'haproxy.cfg');
    const lines = [
      'global',
      '  maxconn 4096',
      'defaults',
      '  mode http',
      '  timeout connect 5s',
      '  timeout client 600s',
      '  timeout server 600s',
      '  timeout http-request 60s',
      '  retries 3',
      '  option redispatch',
      '  option forwardfor',
      'frontend meshbench',
      `  bind 127.0.0.1:${port}`,
      '  default_backend api',
      'backend api',
      '  balance roundrobin',
      '  option httpchk GET /api/v1/health/ready',
      '  http-check expect status 200',
      '  default-server inter 1s fall 2 rise 2',
      ...replicas.map((r, i) => `  server api${i + 1} ${new URL(r).host} check`),
    ];
    writeFileSync(config, `${lines.join('\n')}\n`);
    // -db: in the foreground, stopped by its PID (no daemon, no pidfile).
    const child = spawn(HAPROXY, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    started.add(child);
    let said = '';
    const keep = (chunk: Buffer) => {
      said = (said + chunk.toString('utf8')).slice(-16_384);
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
    for (let i = 0; i < 100 && child.exitCode === null; i++) {
      if (await accepts(port)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    if (child.exitCode === null && (await accepts(port))) {
      return { url: `http://127.0.0.1:${port}`, pid: child.pid as number, stop };
    }
    await stop();
    if (attempt >= 3) throw new Error(`haproxy did not start:\n${said}`);
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
