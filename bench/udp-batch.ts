// bench/udp-batch: what the StatsD listener's receiver keeps while the event loop is busy.
// Another process sends 200-byte datagrams, 20 a millisecond, while this thread is blocked
// in spawnSync (as a long flush or a big JSON parse would block it); both receivers ask the
// kernel for a 1 MiB buffer. Baseline: node:dgram, which reads only when the loop turns, in
// the same run. The figure depends on the kernel's buffer limits (net.core.rmem_max), which
// is why it is a bench and not a test. Budget: udp-batch keeps every datagram.
// Run: npx tsx udp-batch.ts [datagrams]
import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { loadUdpBatch } from '@meshbench/udp-batch';
import { budget, reportBudgets } from './lib/budget.ts';

const N = Number(process.argv[2] ?? 20_000);
const BUFFER = 1024 * 1024;

/** Sends N datagrams to `port` from another process; returns when all were sent. */
function sendWhileBlocked(port: number): number {
  const script = `
    const s = require('node:dgram').createSocket('udp4');
    const payload = Buffer.alloc(200, 120);
    let sent = 0;
    const timer = setInterval(() => {
      for (let i = 0; i < 20 && sent < ${N}; i++, sent++) s.send(payload, ${port}, '127.0.0.1');
      if (sent >= ${N}) { clearInterval(timer); setTimeout(() => s.close(), 50); }
    }, 1);`;
  const start = performance.now();
  const result = spawnSync(process.execPath, ['-e', script], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`the sender exited ${result.status}`);
  return performance.now() - start;
}

/** Waits until `count()` stops growing for 300 ms. */
async function settled(count: () => number): Promise<number> {
  let last = -1;
  while (count() !== last) {
    last = count();
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return last;
}

async function viaUdpBatch() {
  const udpBatch = loadUdpBatch();
  if (!udpBatch.available) throw new Error(udpBatch.reason);
  let received = 0;
  const receiver = udpBatch.open({
    host: '127.0.0.1',
    port: 0,
    recvBufferBytes: BUFFER,
    onDatagram: (d) => {
      if (d.length === 200) received++;
    },
  });
  const blockedMs = sendWhileBlocked(receiver.port);
  const kept = await settled(() => received);
  const granted = receiver.recvBufferBytes;
  receiver.close();
  return { kept, blockedMs, granted };
}

async function viaDgram() {
  let received = 0;
  const socket = createSocket({ type: 'udp4', recvBufferSize: BUFFER });
  socket.on('message', (m) => {
    if (m.length === 200) received++;
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const granted = socket.getRecvBufferSize();
  const blockedMs = sendWhileBlocked(socket.address().port);
  const kept = await settled(() => received);
  socket.close();
  return { kept, blockedMs, granted };
}

const pct = (n: number) => `${((n / N) * 100).toFixed(1)} %`;
const batch = await viaUdpBatch();
const dgram = await viaDgram();
console.log('\nbench/udp-batch');
console.log(
  `  sent                  ${N.toLocaleString('en')} datagrams of 200 bytes, 20 a ms, while the loop was blocked`,
);
console.log(
  `  udp-batch (recvmmsg)  kept ${batch.kept.toLocaleString('en')} (${pct(batch.kept)}); loop blocked ${batch.blockedMs.toFixed(0)} ms; buffer granted ${batch.granted} bytes; budget all: ${budget('udp-batch keeps every datagram', batch.kept === N)}`,
);
console.log(
  `  baseline: node:dgram  kept ${dgram.kept.toLocaleString('en')} (${pct(dgram.kept)}); loop blocked ${dgram.blockedMs.toFixed(0)} ms; buffer granted ${dgram.granted} bytes`,
);
reportBudgets('bench/udp-batch');
