// A PostgreSQL cluster of a test's own (initdb on its own port), for what the shared server
// must never suffer: stops, restarts and outages in the middle of ingest.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

/** Whether this machine can make clusters of its own (Debian's PostgreSQL binaries). */
export const canMakeClusters = binDir() !== undefined;

/** Whether `port` (0: any) can be listened on now; the port, or undefined. */
const tryPort = (port: number) =>
  new Promise<number | undefined>((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => {
      const { port: bound } = srv.address() as { port: number };
      srv.close(() => resolve(bound));
    });
  });

/** Ports this process gave a cluster: one not started yet may not listen on it. */
const given = new Set<number>();

/**
 * A free port: with BENCH_PORTS (e.g. "7200-7299", a range of one's own on a shared
 * machine) the highest free one of it, since the bench's APIs take the range from the bottom;
 * else one the system picks.
 */
async function freePort(): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.BENCH_PORTS ?? '');
  if (!range) return (await tryPort(0)) as number;
  for (let p = Number(range[2]); p >= Number(range[1]); p--) {
    if (given.has(p) || (await tryPort(p)) === undefined) continue;
    given.add(p);
    return p;
  }
  throw new Error(`no free port in BENCH_PORTS ${process.env.BENCH_PORTS}`);
}

export interface PgCluster {
  url: string;
  port: number;
  /** The data directory. */
  data: string;
  /** The postmaster's PID (its postmaster.pid), while it runs. */
  pid(): number | undefined;
  /** What the server logged. */
  log(): string;
  /**
   * Fast shutdown by the postmaster's PID (SIGINT), resolved once that process is gone: no
   * pg_ctl, as an operator's `kill` or a machine that loses the server.
   */
  stopByPid(): Promise<void>;
  start(): void;
  /** Fast shutdown: every connection is cut, as in a restart by an operator. */
  stop(): void;
  restart(): void;
  remove(): void;
  /** stop() and start() without blocking this process (its servers and clients go on). */
  stopAsync(): Promise<void>;
  startAsync(): Promise<void>;
}

export interface ClusterOptions {
  /** Server settings (`name=value`) passed with -c at every start. */
  settings?: string[];
  /**
   * Instead of initdb: a streaming standby of this cluster (`pg_basebackup -R`, WAL streamed
   * during the copy), in recovery from the start.
   */
  standbyOf?: PgCluster;
}

/** initdb's a new cluster (or copies a standby) in a temporary directory and starts it on a free port. */
export async function makeCluster(clusterOptions: ClusterOptions = {}): Promise<PgCluster> {
  const bin = binDir();
  if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'meshbench-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  // initdb and postgres refuse to run as root: run them as the postgres user when we are root.
  const asUser = (cmd: string, args: string[]) => {
    const root = process.getuid?.() === 0;
    const res = root
      ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], {
          encoding: 'utf8',
        })
      : spawnSync(join(bin, cmd), args, { encoding: 'utf8' });
    if (res.status !== 0)
      throw new Error(`${cmd} ${args.join(' ')} failed: ${res.stderr || res.stdout}`);
  };
  const primary = clusterOptions.standbyOf;
  if (primary)
    // initdb's pg_hba.conf trusts replication connections from 127.0.0.1; -R writes
    // standby.signal and primary_conninfo.
    asUser('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'],
      ...['-D', data, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
    ]);
  else asUser('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const asUserAsync = (cmd: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const root = process.getuid?.() === 0;
      const child = root
        ? spawn('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args])
        : spawn(join(bin, cmd), args);
      let output = '';
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        output += d.toString();
      });
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} failed: ${output}`)),
      );
    });
  const ctl = (action: string, extra: string[] = []) =>
    asUser('pg_ctl', ['-D', data, '-w', '-t', '60', ...extra, action]);
  const ctlAsync = (action: string, extra: string[] = []) =>
    asUserAsync('pg_ctl', ['-D', data, '-w', '-t', '60', ...extra, action]);
  const settings = (clusterOptions.settings ?? []).map((s) => ` -c ${s}`).join('');
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off${settings}`;
  const pid = () => {
    try {
      const n = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      return Number.isInteger(n) && n > 0 ? n : undefined;
    } catch {
      return undefined;
    }
  };
  const alive = (n: number) => {
    try {
      process.kill(n, 0);
      return true;
    } catch {
      return false;
    }
  };
  const cluster: PgCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    data,
    pid,
    log: () => {
      try {
        return readFileSync(join(dir, 'log'), 'utf8');
      } catch {
        return '';
      }
    },
    async stopByPid() {
      const n = pid();
      if (n === undefined || !alive(n)) return;
      process.kill(n, 'SIGINT');
      for (let i = 0; alive(n); i++) {
        if (i > 600) throw new Error(`postgres (PID ${n}) still runs 60 s after SIGINT`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    start: () => ctl('start', ['-o', options, '-l', join(dir, 'log')]),
    stop: () => ctl('stop', ['-m', 'fast']),
    startAsync: () => ctlAsync('start', ['-o', options, '-l', join(dir, 'log')]),
    stopAsync: () => ctlAsync('stop', ['-m', 'fast']),
    restart: () => {
      cluster.stop();
      cluster.start();
    },
    remove: () => {
      try {
        cluster.stop();
      } catch {}
      rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  execFileSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)]);
  return cluster;
}
