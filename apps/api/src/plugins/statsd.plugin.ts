// The StatsD listener: UDP datagrams and newline-delimited TCP on one port, handed to the
// flush service (services/statsd-flush.service.ts), which aggregates them per interval and
// writes the rows; here the sockets, the flush timer and shutdown. Nothing here throws.
// UDP is read by the udp-batch addon where it is built: a thread of its own drains the
// socket with recvmmsg and queues up to 16 MiB while the event loop is busy (a flush, a
// large request, a JIT compile), so the kernel's buffer does not overflow meanwhile.
// Elsewhere node:dgram reads it on the event loop, one callback per datagram.
import { createSocket, type Socket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { createServer, isIP, type Server, type Socket as TcpSocket } from 'node:net';
import type { StatsdStats } from '@meshbench/schema';
import { type BatchReceiver, loadUdpBatch } from '@meshbench/udp-batch';
import fp from 'fastify-plugin';
import { statsdFlushService } from '../services/statsd-flush.service.ts';

export interface StatsdListener {
  readonly udpPort: number | null;
  readonly tcpPort: number | null;
  /** Closes the current interval now and waits until every interval so far is written. */
  flush(): Promise<void>;
  stats(): Omit<StatsdStats, 'otlp'>;
}

declare module 'fastify' {
  interface FastifyInstance {
    statsd: StatsdListener;
  }
}

export interface StatsdPluginOptions {
  /** 0: off; 'ephemeral': free ports chosen by the OS (tests), read back from app.statsd. */
  port: number | 'ephemeral';
  host: string;
  flushMs: number;
  /** batch: the udp-batch addon where it is built (else dgram, with a warning). */
  udp: 'batch' | 'dgram';
  /**
   * The project (id or name) whose runs the listener may write: StatsD has no
   * authentication, so a deployment binds it to one. Unset: any project's runs.
   */
  project?: string | undefined;
  /** Points (one per series and interval) kept while the database cannot take them. */
  backlogMaxPoints: number;
}

const RECV_BUFFER_BYTES = 4 * 1024 * 1024;
/** A TCP line longer than this without a newline is dropped as malformed. */
const MAX_TCP_LINE = 64 * 1024;

export default fp<StatsdPluginOptions>(
  async (app, opts) => {
    let projectId: string | null = null;
    if (opts.project) {
      const project = await app.services.projects.find(opts.project);
      if (!project) {
        throw new Error(
          `STATSD_PROJECT: no project "${opts.project}" (give an existing project's id or name)`,
        );
      }
      projectId = project.id;
    }
    const flusher = statsdFlushService({
      ingest: app.services.metricsIngest,
      log: app.log,
      scope: { projectId },
      flushMs: opts.flushMs,
      backlogMaxPoints: opts.backlogMaxPoints,
    });
    let udp: Socket | null = null;
    let batch: BatchReceiver | null = null;
    let tcp: Server | null = null;
    const connections = new Set<TcpSocket>();

    const listener: StatsdListener = {
      get udpPort() {
        if (batch) return batch.port;
        return udp ? udp.address().port : null;
      },
      get tcpPort() {
        const address = tcp?.address();
        return address && typeof address === 'object' ? address.port : null;
      },
      flush: () => flusher.flush(),
      stats: () => ({
        enabled: udp !== null || batch !== null,
        udpPort: listener.udpPort,
        tcpPort: listener.tcpPort,
        udpReceiver: batch ? 'batch' : udp ? 'dgram' : null,
        ...flusher.stats(),
      }),
    };
    app.decorate('statsd', listener);
    if (opts.port === 0) return;

    const port = opts.port === 'ephemeral' ? 0 : opts.port;
    const host = opts.host;
    const udpBatch = opts.udp === 'batch' ? loadUdpBatch() : null;
    if (udpBatch?.available) {
      // The addon binds an IP address; a name is resolved as dgram would (udp4 unless v6).
      const address = isIP(host) ? host : (await lookup(host, { family: 4 })).address;
      batch = udpBatch.open({
        host: address,
        port,
        recvBufferBytes: RECV_BUFFER_BYTES,
        onDatagram: (datagram) => flusher.datagram(datagram),
      });
    } else {
      if (udpBatch && !udpBatch.available) {
        app.log.warn(`statsd: ${udpBatch.reason}; reading UDP with node:dgram`);
      }
      udp = await openDgram(host, port, (datagram) => flusher.datagram(datagram), app.log);
    }
    try {
      if (udp) udp.setRecvBufferSize(RECV_BUFFER_BYTES);
    } catch {
      // Not allowed here (limits, platform): the default buffer only loses more in bursts.
    }
    const granted = batch ? batch.recvBufferBytes : (udp as Socket).getRecvBufferSize();
    if (granted < RECV_BUFFER_BYTES) {
      app.log.warn(
        `statsd: UDP receive buffer is ${granted} bytes (asked ${RECV_BUFFER_BYTES}); raise net.core.rmem_max to lose less in bursts`,
      );
    }

    tcp = createServer((socket) => {
      connections.add(socket);
      let rest: Buffer = Buffer.alloc(0);
      /** The rest of a line already dropped as too long: skipped up to its newline. */
      let skipping = false;
      socket.on('data', (received: Buffer) => {
        let chunk = received;
        if (skipping) {
          const nl = chunk.indexOf(10);
          if (nl < 0) return;
          skipping = false;
          chunk = chunk.subarray(nl + 1);
        }
        const data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
        const end = data.lastIndexOf(10);
        if (end < 0) {
          rest = data;
        } else {
          flusher.receive(data.subarray(0, end + 1));
          rest = Buffer.from(data.subarray(end + 1));
        }
        if (rest.length > MAX_TCP_LINE) {
          flusher.malformed(
            rest.subarray(0, 200).toString(),
            `a TCP line over ${MAX_TCP_LINE} bytes`,
          );
          rest = Buffer.alloc(0);
          skipping = true;
        }
      });
      socket.on('end', () => {
        if (rest.length > 0 && !skipping) flusher.receive(rest);
        rest = Buffer.alloc(0);
      });
      socket.on('error', () => {});
      socket.on('close', () => connections.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      (tcp as Server).once('error', reject);
      // The TCP port is the UDP one, as StatsD servers do; ephemeral ones are chosen apart.
      (tcp as Server).listen(opts.port === 'ephemeral' ? 0 : port, host, () => {
        (tcp as Server).off('error', reject);
        resolve();
      });
    });

    const timer = setInterval(() => void flusher.flush(), opts.flushMs);
    timer.unref();
    app.log.info(
      `statsd listening on udp ${listener.udpPort} and tcp ${listener.tcpPort} (flush every ${opts.flushMs} ms)`,
    );

    app.addHook('onClose', async () => {
      clearInterval(timer);
      batch?.close();
      if (udp) await new Promise<void>((resolve) => (udp as Socket).close(() => resolve()));
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => (tcp as Server).close(() => resolve()));
      // A last try: while the database is away, what waits is lost with the process.
      await flusher.close();
    });
  },
  { name: 'statsd', dependencies: ['services'] },
);

async function openDgram(
  host: string,
  port: number,
  receive: (bytes: Uint8Array) => void,
  log: { error(o: object, msg: string): void },
): Promise<Socket> {
  const udp = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4' });
  udp.on('message', (msg) => receive(msg));
  udp.on('error', (error) => log.error({ err: error }, 'statsd: UDP socket error'));
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(port, host, () => {
      udp.off('error', reject);
      resolve();
    });
  });
  return udp;
}
