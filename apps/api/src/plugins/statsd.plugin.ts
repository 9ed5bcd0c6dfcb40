// The StatsD listener: UDP datagrams and newline-delimited TCP on one port, parsed and
// aggregated in memory for one flush interval, then written as rows (one per series per
// interval, from this replica). Bad lines are counted and dropped; nothing here throws.
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
import { StatsdAggregator } from '../ingest/statsd/statsd-aggregate.ts';
import { type MetricRecord, statsdRecord } from '../ingest/metric-record.ts';
import { isTransientDbError, StatsdBacklog } from '../ingest/statsd/statsd-backlog.ts';
import { StatsdReader } from '../ingest/statsd/statsd-lines.ts';

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
/** Retries of a failed write: from this delay, doubled up to the next, while it fails. */
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5000;
/** Failures with an error that is not the database's absence before a chunk is halved. */
const MAX_FAILURES = 3;

export default fp<StatsdPluginOptions>(
  async (app, opts) => {
    const aggregator = new StatsdAggregator({ flushMs: opts.flushMs });
    const reader = new StatsdReader(aggregator);
    const counters = {
      datagrams: 0,
      lines: 0,
      unmatched: 0,
      held: 0,
      rowsWritten: 0,
      flushErrors: 0,
    };
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
    const scope = { projectId };
    let udp: Socket | null = null;
    let batch: BatchReceiver | null = null;
    let tcp: Server | null = null;
    const connections = new Set<TcpSocket>();
    let intervalStart = Date.now();

    const receive = (bytes: Uint8Array) => {
      counters.lines += reader.read(bytes);
    };

    /** Rows are made and written in slices, so datagrams are read in between. */
    const SLICE = 250;
    const yieldToSocket = () => new Promise<void>((resolve) => setImmediate(resolve));
    const backlog = new StatsdBacklog(opts.backlogMaxPoints);
    let closing = false;
    /** The database failed the last write for its absence: the next tries wait. */
    let outage = false;
    let wake: (() => void) | null = null;
    let draining: Promise<void> | null = null;
    /** Intervals closed but not yet made into records (in order). */
    let making: Promise<void> = Promise.resolve();

    /** Writes the backlog, oldest first, until it is empty; retries while the database is away. */
    function drain(): Promise<void> {
      if (draining) return draining;
      draining = (async () => {
        let delay = RETRY_MIN_MS;
        for (let chunk = backlog.head; chunk; chunk = backlog.head) {
          try {
            const result = await app.services.metricsIngest.store(chunk.records, scope);
            counters.rowsWritten += result.stored;
            counters.held += result.held;
            for (const n of result.refused.values()) counters.unmatched += n;
            backlog.shift();
            if (outage) {
              outage = false;
              app.log.info(
                `statsd: the database is back, writing ${backlog.counters.points} points kept meanwhile`,
              );
            }
            delay = RETRY_MIN_MS;
          } catch (error) {
            counters.flushErrors++;
            // A refusal of what was written (SQLSTATE 22: data exception, 23: integrity) is
            // not retried as it is; anything else unknown a few times before it is halved.
            const refusal = /^2[23]/.test(String((error as { code?: unknown }).code ?? ''));
            if (isTransientDbError(error) || (!refusal && ++chunk.failures < MAX_FAILURES)) {
              if (!outage) {
                app.log.warn(
                  { err: error },
                  'statsd: writing failed; keeping the points until the database takes them',
                );
              }
              outage = true;
              if (closing) return;
              await new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, delay);
                wake = () => {
                  clearTimeout(timer);
                  resolve();
                };
              });
              wake = null;
              delay = Math.min(RETRY_MAX_MS, delay * 2);
            } else if (!backlog.isolate()) {
              // One record the database refuses whatever the moment: it alone is dropped.
              app.log.error({ err: error }, 'statsd: the database refused a point; dropped');
            }
          }
        }
      })().finally(() => {
        draining = null;
      });
      return draining;
    }

    function flush(): Promise<void> {
      const now = Date.now();
      const closed = aggregator.close(intervalStart, now);
      reader.trim();
      intervalStart = now;
      const n = closed.aggregates.length;
      if (n > 0) {
        making = making.then(async () => {
          const records: MetricRecord[] = [];
          const samples: number[] = [];
          for (let i = 0; i < n; i += SLICE) {
            for (const row of aggregator.rows(closed, i, i + SLICE)) {
              records.push(statsdRecord(row));
              samples.push(row.samples);
            }
            await yieldToSocket();
          }
          const before = backlog.counters.droppedPoints;
          backlog.push(records, samples);
          const dropped = backlog.counters.droppedPoints - before;
          if (dropped > 0) {
            app.log.warn(
              `statsd: ${dropped} points dropped, ${backlog.counters.points} wait to be written (MESHBENCH_STATSD_BACKLOG_MAX_POINTS)`,
            );
          }
        });
        // A failure here must not stop every later interval from being written.
        making = making.catch((error) => {
          app.log.error({ err: error }, 'statsd: making rows of an interval failed');
        });
      }
      return making.then(() => drain());
    }

    const listener: StatsdListener = {
      get udpPort() {
        if (batch) return batch.port;
        return udp ? udp.address().port : null;
      },
      get tcpPort() {
        const address = tcp?.address();
        return address && typeof address === 'object' ? address.port : null;
      },
      flush,
      stats: () => ({
        enabled: udp !== null || batch !== null,
        udpPort: listener.udpPort,
        tcpPort: listener.tcpPort,
        udpReceiver: batch ? 'batch' : udp ? 'dgram' : null,
        datagrams: counters.datagrams,
        lines: counters.lines,
        samples: aggregator.counters.samples,
        malformed: aggregator.counters.malformed,
        lastMalformed: aggregator.counters.lastMalformed,
        events: aggregator.counters.events,
        serviceChecks: aggregator.counters.serviceChecks,
        unmatched: counters.unmatched + aggregator.counters.dropped,
        held: counters.held,
        project: projectId,
        rowsWritten: counters.rowsWritten,
        flushErrors: counters.flushErrors,
        backlogPoints: backlog.counters.points,
        backlogSamples: backlog.counters.samples,
        backlogMaxPoints: backlog.maxPoints,
        droppedPoints: backlog.counters.droppedPoints,
        droppedSamples: backlog.counters.droppedSamples,
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
        onDatagram(datagram) {
          counters.datagrams++;
          receive(datagram);
        },
      });
    } else {
      if (udpBatch && !udpBatch.available) {
        app.log.warn(`statsd: ${udpBatch.reason}; reading UDP with node:dgram`);
      }
      udp = await openDgram(host, port, receive, counters, app.log);
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
          receive(data.subarray(0, end + 1));
          rest = Buffer.from(data.subarray(end + 1));
        }
        if (rest.length > MAX_TCP_LINE) {
          aggregator.malformed(
            rest.subarray(0, 200).toString(),
            `a TCP line over ${MAX_TCP_LINE} bytes`,
          );
          rest = Buffer.alloc(0);
          skipping = true;
        }
      });
      socket.on('end', () => {
        if (rest.length > 0 && !skipping) receive(rest);
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

    const timer = setInterval(() => void flush(), opts.flushMs);
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
      closing = true;
      wake?.();
      await flush();
      if (backlog.counters.points > 0) {
        app.log.error(
          `statsd: shutting down with ${backlog.counters.points} points (${backlog.counters.samples} samples) not written`,
        );
      }
    });
  },
  { name: 'statsd', dependencies: ['services'] },
);

async function openDgram(
  host: string,
  port: number,
  receive: (bytes: Uint8Array) => void,
  counters: { datagrams: number },
  log: { error(o: object, msg: string): void },
): Promise<Socket> {
  const udp = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4' });
  udp.on('message', (msg) => {
    counters.datagrams++;
    receive(msg);
  });
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
