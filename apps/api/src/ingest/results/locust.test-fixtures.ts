// Runs the real Locust (Debian's python3-locust) headless against an HTTP server started here,
// on 127.0.0.1, for a few seconds: alone, or as a master with two workers. Besides Locust's own
// --csv / --csv-full-history files, the locustfile keeps every response time as measured (the
// `request` event Locust's own stats listen to), so tests know the true values, and writes the
// JSON that `locust --json` prints in later versions (stats.print_stats_json:
// json.dumps(stats.serialize_stats(), indent=4)) since 2.12 has no --json yet.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const LOCUST = '/usr/bin/locust';
export const haveLocust = existsSync(LOCUST);

/**
 * The installed Locust's version, e.g. "2.12.1", from dpkg: Debian's build leaves Locust's own
 * version empty (locust/_version.py `version = ''`, `locust --version` prints "locust ").
 */
export function locustVersion(): string {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's ${Version} field
  const format = '${Version}';
  const out = execFileSync('dpkg-query', ['-W', '-f', format, 'python3-locust'], {
    encoding: 'utf8',
  });
  return out.replace(/-[^-]*$/, '');
}

// Delays (ms) the server waits before answering: they spread the response times over Locust's
// 1 ms, 10 ms and 100 ms buckets and across the 100 ms decade edge.
const LOCUSTFILE = `
import json, os, random, time
from locust import HttpUser, task, constant, events
import locust.runners
from locust.runners import WorkerRunner

# Debian's python3-locust has an empty __version__, which its master takes for a pre-2.0
# worker's "client_ready" and refuses ("An old (pre 2.0) worker tried to connect"): give it one.
if not locust.runners.__version__:
    locust.runners.__version__ = os.environ["MB_LOCUST_VERSION"]

OUT = os.environ["MB_OUT"]
_samples = None

@events.request.add_listener
def _keep(request_type, name, response_time, exception, **kw):
    global _samples
    if response_time is None:
        return
    if _samples is None:
        _samples = open(os.path.join(OUT, "samples-%d.tsv" % os.getpid()), "w")
    _samples.write("%s\\t%s\\t%r\\n" % (request_type, name, response_time))

_env = None

@events.init.add_listener
def _init(environment, **kw):
    global _env
    _env = environment

# 2.12's quit event passes only exit_code; the environment is kept from init.
@events.quit.add_listener
def _dump(**kw):
    if _samples is not None:
        _samples.close()
    if not isinstance(_env.runner, WorkerRunner):
        with open(os.path.join(OUT, "report.json"), "w") as f:
            json.dump(_env.runner.stats.serialize_stats(), f, indent=4)

# Requests stop after MB_ACTIVE_S seconds of the first task, and the run stays quiet until
# Locust stops: 2.12 rewrites _stats.csv once a second but not once more when it quits, so the
# file holds every request only after a quiet spell. It flushes _stats_history.csv only every
# CSV_STATS_FLUSH_INTERVAL_SEC (10 s) and not at exit either: flushed every second here (what
# is written is unchanged, only when it reaches the disk).
import locust.stats
locust.stats.CSV_STATS_FLUSH_INTERVAL_SEC = 1
ACTIVE = float(os.environ["MB_ACTIVE_S"])
_t0 = None

def _active():
    global _t0
    if _t0 is None:
        _t0 = time.time()
    return time.time() - _t0 < ACTIVE

class Visitor(HttpUser):
    def wait_time(self):
        return 0.005 if _active() else 60

    @task(6)
    def spread(self):
        if not _active():
            return
        ms = random.choice([0, 0, 1, 3, 8, 20, 40, 70, 94, 97, 99, 101, 104, 120, 180, 240])
        self.client.get("/delay/%d" % ms, name="/delay")

    @task(1)
    def failing(self):
        if not _active():
            return
        self.client.get("/fail", name="/fail")
`;

function startServer(): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/fail') {
      res.statusCode = 500;
      res.end('no');
      return;
    }
    const ms = Number(/^\/delay\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
    setTimeout(() => res.end('ok'), ms);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function freePort(): Promise<number> {
  const s = createTcpServer();
  return new Promise((resolve) =>
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    }),
  );
}

function exited(child: ChildProcess, what: string): Promise<number> {
  let err = '';
  child.stderr?.on('data', (d) => {
    err = (err + d).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      // Locust exits 1 when any request failed (the /fail task makes sure some do).
      if (code === 0 || code === 1) resolve(code);
      else reject(new Error(`${what} exited ${code}: ${err}`));
    });
  });
}

export interface LocustRun {
  dir: string;
  /** The files Locust wrote (by suffix: _stats.csv, ...) and report.json. */
  file(suffix: string): string;
  /** Every timed request as measured, by "METHOD name", and all of them under "". */
  samples: Map<string, number[]>;
}

/** `active` seconds of requests within a run of `seconds`. */
export async function runLocust(opts: {
  workers: number;
  seconds: number;
  active: number;
}): Promise<LocustRun> {
  const dir = mkdtempSync(join(tmpdir(), 'mb-locust-'));
  writeFileSync(join(dir, 'locustfile.py'), LOCUSTFILE);
  const server = await startServer();
  const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env = {
    ...process.env,
    MB_OUT: dir,
    MB_LOCUST_VERSION: locustVersion(),
    MB_ACTIVE_S: String(opts.active),
    PYTHONDONTWRITEBYTECODE: '1',
  };
  const common = ['-f', join(dir, 'locustfile.py'), '--headless', '--only-summary'];
  const run = [
    ...common,
    '-u',
    '20',
    '-r',
    '20',
    '-t',
    `${opts.seconds}s`,
    '--host',
    host,
    '--csv',
    join(dir, 'run'),
    '--csv-full-history',
    '--loglevel',
    'WARNING',
  ];
  try {
    if (opts.workers === 0) {
      await exited(spawn(LOCUST, run, { env, cwd: dir }), 'locust');
    } else {
      const port = await freePort();
      const master = spawn(
        LOCUST,
        [
          ...run,
          '--master',
          '--master-bind-host',
          '127.0.0.1',
          '--master-bind-port',
          String(port),
          '--expect-workers',
          String(opts.workers),
        ],
        { env, cwd: dir },
      );
      const workers = Array.from({ length: opts.workers }, () =>
        spawn(
          LOCUST,
          [
            ...common,
            '--worker',
            '--master-host',
            '127.0.0.1',
            '--master-port',
            String(port),
            '--loglevel',
            'WARNING',
          ],
          { env, cwd: dir },
        ),
      );
      await Promise.all([
        exited(master, 'locust master'),
        ...workers.map((w, i) => exited(w, `locust worker ${i + 1}`)),
      ]);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  const samples = new Map<string, number[]>([['', []]]);
  for (const f of readdirSync(dir).filter((n) => n.startsWith('samples-'))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (line === '') continue;
      const [method, name, ms] = line.split('\t') as [string, string, string];
      const key = `${method} ${name}`;
      if (!samples.has(key)) samples.set(key, []);
      samples.get(key)?.push(Number(ms));
      samples.get('')?.push(Number(ms));
    }
  }
  return {
    dir,
    file: (suffix) =>
      readFileSync(join(dir, suffix === 'report.json' ? suffix : `run${suffix}`), 'utf8'),
    samples,
  };
}

/** The nearest-rank p-th percentile of raw values (the obviously right, slow way). */
export function trueNearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length - 1e-9)));
  return sorted[rank - 1] as number;
}
