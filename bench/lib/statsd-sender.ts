// The StatsD sender of bench/statsd, in its own process: N lines over loopback UDP in
// ~1,400-byte multi-metric datagrams with 1,000 distinct tag sets, paced to a line rate
// (0: as fast as it can). Prints one JSON line with what it sent.
// Usage: tsx statsd-sender.ts <port> <lines> <linesPerSecond> <runRef>
import { createSocket } from 'node:dgram';

const [port, total, rate, runRef] = [
  Number(process.argv[2]),
  Number(process.argv[3]),
  Number(process.argv[4]),
  process.argv[5] ?? 'bench',
];

/** The lines of tag set k: a counter, a sampled counter, a gauge and a timer. */
function lines(k: number): string[] {
  const tags = `#run:${runRef},node:node-${String(k).padStart(4, '0')},az:us-east-1${'abc'[k % 3]}`;
  return [
    `consul.xds.pushes:1|c|${tags}`,
    `consul.rpc.requests:2|c|@0.5|${tags}`,
    `consul.agent.cpu_pct:${(k % 97) + 0.5}|g|${tags}`,
    `consul.xds.push_ms:${((k * 7) % 250) + 0.25}|ms|${tags}`,
  ];
}

// A pool of datagrams that together cover every tag set; sent round-robin.
const pool: { text: Buffer; lines: number }[] = [];
let current: string[] = [];
let size = 0;
for (let k = 0; k < 1000; k++) {
  for (const line of lines(k)) {
    if (size + line.length + 1 > 1400 && current.length > 0) {
      pool.push({ text: Buffer.from(current.join('\n')), lines: current.length });
      current = [];
      size = 0;
    }
    current.push(line);
    size += line.length + 1;
  }
}
if (current.length > 0) pool.push({ text: Buffer.from(current.join('\n')), lines: current.length });

const socket = createSocket('udp4');
let sentLines = 0;
let datagrams = 0;
let next = 0;
const started = performance.now();

function pump() {
  const due = rate > 0 ? Math.min(total, ((performance.now() - started) * rate) / 1000) : total;
  let burst = 0;
  while (sentLines < due && sentLines < total && burst < 64) {
    const d = pool[next++ % pool.length] as { text: Buffer; lines: number };
    socket.send(d.text, port, '127.0.0.1');
    sentLines += d.lines;
    datagrams++;
    burst++;
  }
  if (sentLines >= total) {
    // The last send's callback: everything before it has left the socket.
    socket.send(Buffer.from('\n'), port, '127.0.0.1', () => {
      const ms = performance.now() - started;
      process.stdout.write(`${JSON.stringify({ sentLines, datagrams, ms })}\n`);
      socket.close();
    });
    return;
  }
  setImmediate(pump);
}
pump();
