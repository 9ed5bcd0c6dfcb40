// bench/statsd: StatsD lines over loopback UDP from a sender in its own process, into
// (1) a bare Node dgram socket that only counts lines (the ceiling) and (2) the built API,
// which parses, aggregates and writes them to Postgres. Prints lines/s received and
// aggregated, loss (counted, and the kernel's UDP drop counters), the ratio, and the CPU
// time each receiver spent per line (less noisy than rates on a shared machine).
// The API reads UDP with the udp-batch addon where it is built; MESHBENCH_STATSD_UDP=dgram
// measures its node:dgram fallback.
// Usage: tsx statsd.ts [--lines N] [--rate linesPerSecond] (DATABASE_URL, default the local test db)

import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as schema from '@meshbench/schema';
import { budget, reportBudgets } from './lib/budget.ts';
import { DEFAULT_DATABASE_URL, startApi } from './lib/server.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const LINES = arg('lines', 10_000_000);
const RATE = arg('rate', 1_000_000);
const TOKEN = 'bench-admin-token-0123456789';
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** CPU time (user + system, ms) a process has used so far, from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line (11 and 12 after the command name).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** The kernel's UDP counters: datagrams dropped for a full buffer or other input errors. */
function udpDrops(): { inErrors: number; rcvbufErrors: number } {
  const lines = readFileSync('/proc/net/snmp', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('Udp:'));
  const names = (lines[0] ?? '').split(/\s+/);
  const values = (lines[1] ?? '').split(/\s+/).map(Number);
  const get = (name: string) => values[names.indexOf(name)] ?? 0;
  return { inErrors: get('InErrors'), rcvbufErrors: get('RcvbufErrors') };
}

async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', () => resolve()));
  const { port } = s.address();
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

function runSender(
  port: number,
  runRef: string,
): Promise<{ sentLines: number; datagrams: number; ms: number }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(new URL('./lib/statsd-sender.ts', import.meta.url)),
      String(port),
      String(LINES),
      String(RATE),
      runRef,
    ],
    { cwd: fileURLToPath(new URL('.', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout?.on('data', (c) => {
    out += c;
  });
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`sender exited ${code}`)),
    ),
  );
}

interface Phase {
  received: number;
  spanMs: number;
  sent: { sentLines: number; datagrams: number; ms: number };
  kernel: { inErrors: number; rcvbufErrors: number };
}

/** Runs the sender against a receiver whose line count `count()` reports, until it settles. */
async function phase(
  port: number,
  runRef: string,
  count: () => Promise<number> | number,
): Promise<Phase> {
  const k0 = udpDrops();
  const c0 = await count();
  let first = 0;
  let last = 0;
  let seen = c0;
  let done = false;
  const sender = runSender(port, runRef).then((r) => {
    done = true;
    return r;
  });
  let quietSince = 0;
  for (;;) {
    await new Promise((r) => setTimeout(r, 20));
    const now = performance.now();
    const c = await count();
    if (c > seen) {
      if (first === 0) first = now;
      last = now;
      seen = c;
      quietSince = now;
    }
    if (done && now - quietSince > 1000) break;
  }
  const sent = await sender;
  const k1 = udpDrops();
  return {
    received: seen - c0,
    spanMs: last - first,
    sent,
    kernel: {
      inErrors: k1.inErrors - k0.inErrors,
      rcvbufErrors: k1.rcvbufErrors - k0.rcvbufErrors,
    },
  };
}

function report(label: string, p: Phase) {
  const loss = 1 - p.received / p.sent.sentLines;
  console.log(
    `  ${label.padEnd(28)} ${fmt((p.received / p.spanMs) * 1000).padStart(11)} lines/s   loss ${fmt(loss * 100, 3)} %   kernel drops: InErrors ${fmt(p.kernel.inErrors)}, RcvbufErrors ${fmt(p.kernel.rcvbufErrors)}`,
  );
}

async function main() {
  // --- the ceiling: a bare socket that only counts lines ---
  const bare = createSocket({ type: 'udp4', recvBufferSize: 4 * 1024 * 1024 });
  let bareLines = 0;
  // The bare socket shares this process's event loop with the polling in phase(): at full
  // speed the polls run late, so its first and last datagram are timed where they arrive.
  let bareFirst = 0;
  let bareLast = 0;
  bare.on('message', (msg: Buffer) => {
    bareLast = performance.now();
    if (bareFirst === 0) bareFirst = bareLast;
    let n = 0;
    for (let i = msg.indexOf(10); i >= 0; i = msg.indexOf(10, i + 1)) n++;
    bareLines += msg.length > 1 ? n + 1 : 0;
  });
  await new Promise<void>((resolve) => bare.bind(0, '127.0.0.1', () => resolve()));
  const bareCpu0 = process.cpuUsage();
  const bareResult = await phase(bare.address().port, 'bench', () => bareLines);
  bareResult.spanMs = bareLast - bareFirst;
  const bareCpu = process.cpuUsage(bareCpu0);
  const bareCpuMs = (bareCpu.user + bareCpu.system) / 1000;
  bare.close();

  // --- the API: parse, aggregate per interval, write to Postgres ---
  const statsdPort = await freeUdpPort();
  const api = await startApi({
    DATABASE_URL: databaseUrl,
    STATSD_PORT: String(statsdPort),
    MESHBENCH_ADMIN_TOKEN: TOKEN,
  });
  try {
    const created = await fetch(`${api.url}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ benchmark: 'bench', scenario: 'statsd', mesh: { name: 'consul' } }),
    });
    const run = schema.run.parse(await created.json());
    const stats = async () =>
      schema.statsdStats.parse(await (await fetch(`${api.url}/api/v1/statsd/stats`)).json());
    const before = await stats();
    const cpu0 = cpuMs(api.pid);
    const apiResult = await phase(statsdPort, run.id, async () => (await stats()).lines);
    await new Promise((r) => setTimeout(r, 2500)); // the last intervals are flushed
    const after = await stats();
    const apiCpuMs = cpuMs(api.pid) - cpu0;
    const series = schema.seriesList.parse(
      await (await fetch(`${api.url}/api/v1/runs/${run.id}/series`)).json(),
    );
    const pushes = series
      .filter((s) => s.name === 'consul.xds.pushes')
      .reduce((a, s) => a + (s.stats.sum ?? 0), 0);

    const samples = after.samples - before.samples;
    console.log('\nbench/statsd');
    console.log(
      `  sent                         ${fmt(LINES)} lines in ${fmt(apiResult.sent.datagrams)} datagrams (~1,400 bytes, 1,000 tag sets), paced at ${RATE > 0 ? `${fmt(RATE)} lines/s` : 'full speed'}; sender achieved ${fmt((apiResult.sent.sentLines / apiResult.sent.ms) * 1000)} lines/s`,
    );
    report('bare dgram socket (ceiling)', bareResult);
    report(`API received (${after.udpReceiver})`, apiResult);
    console.log(
      `  API aggregated               ${fmt((samples / apiResult.spanMs) * 1000).padStart(11)} samples/s  (${fmt(samples)} samples, ${fmt(after.malformed - before.malformed)} malformed, ${fmt(after.rowsWritten - before.rowsWritten)} rows written, ${fmt(after.flushErrors - before.flushErrors)} flush errors)`,
    );
    console.log(
      `  API CPU                      ${fmt(apiCpuMs)} ms (${fmt((apiCpuMs * 1000) / Math.max(1, apiResult.received), 2)} us per line received, flushes included; bare socket ${fmt((bareCpuMs * 1000) / Math.max(1, bareResult.received), 2)} us)`,
    );
    console.log(
      `  stored check                 consul.xds.pushes sum ${fmt(pushes)} of ${fmt(apiResult.received / 4)} received`,
    );
    const apiRate = (apiResult.received / apiResult.spanMs) * 1000;
    const bareRate = (bareResult.received / bareResult.spanMs) * 1000;
    const loss = 1 - apiResult.received / apiResult.sent.sentLines;
    console.log(
      `  budget: >= 800,000 lines/s ${budget('>= 800,000 lines/s', apiRate >= 800_000)}; < 0.1 % loss ${budget('< 0.1 % loss', loss < 0.001)}; >= 70 % of bare ${fmt((apiRate / bareRate) * 100, 1)} % ${budget('>= 70 % of the bare socket', apiRate >= 0.7 * bareRate)}`,
    );
  } finally {
    await api.stop();
  }
  reportBudgets('bench/statsd');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
