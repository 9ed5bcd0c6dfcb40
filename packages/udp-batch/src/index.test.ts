import { spawnSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { type BatchReceiver, loadUdpBatch } from './index.ts';

const udpBatch = loadUdpBatch();

/** Every datagram received, copied (the memory is reused), in order. */
function collector() {
  const datagrams: Buffer[] = [];
  return {
    datagrams,
    onDatagram(datagram: Buffer) {
      datagrams.push(Buffer.from(datagram));
    },
  };
}

async function until(check: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

function sender(type: 'udp4' | 'udp6' = 'udp4'): Socket {
  return createSocket(type);
}

function send(socket: Socket, payload: Buffer | string, port: number, host = '127.0.0.1') {
  return new Promise<void>((resolve, reject) =>
    socket.send(payload, port, host, (error) => (error ? reject(error) : resolve())),
  );
}

describe('udp-batch', () => {
  const open: BatchReceiver[] = [];
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const r of open.splice(0)) r.close();
    for (const s of sockets.splice(0)) s.close();
  });

  it('is built here (CI and development machines have a C compiler)', () => {
    expect(udpBatch.available ? 'built' : udpBatch.reason).toBe('built');
  });

  if (!udpBatch.available) return;

  it('receives datagrams byte for byte, the empty one and a 65,507-byte one included', async () => {
    const c = collector();
    const r = udpBatch.open({ host: '127.0.0.1', port: 0, onDatagram: c.onDatagram });
    open.push(r);
    expect(r.port).toBeGreaterThan(0);
    const s = sender();
    sockets.push(s);
    const big = Buffer.alloc(65_507);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31 + 7) & 0xff;
    await send(s, 'a:1|c', r.port);
    await send(s, Buffer.alloc(0), r.port);
    await send(s, big, r.port);
    await send(s, 'b:2|g\nc:3|ms\n', r.port);
    await until(() => c.datagrams.length === 4);
    expect(c.datagrams[0]!.toString()).toBe('a:1|c');
    expect(c.datagrams[1]!.length).toBe(0);
    expect(c.datagrams[2]!.equals(big)).toBe(true);
    expect(c.datagrams[3]!.toString()).toBe('b:2|g\nc:3|ms\n');
  });

  it('receives a burst whole and in order', async () => {
    const c = collector();
    const r = udpBatch.open({
      host: '127.0.0.1',
      port: 0,
      recvBufferBytes: 4 * 1024 * 1024,
      onDatagram: c.onDatagram,
    });
    open.push(r);
    const s = sender();
    sockets.push(s);
    const n = 2000;
    await Promise.all(Array.from({ length: n }, (_, i) => send(s, `m.${i}:${i}|c`, r.port)));
    await until(() => c.datagrams.length === n);
    expect(c.datagrams.map((d) => d.toString())).toEqual(
      Array.from({ length: n }, (_, i) => `m.${i}:${i}|c`),
    );
  });

  /**
   * Another process sends `n` datagrams of 200 bytes, 20 a millisecond, while this thread
   * waits for it with spawnSync: the event loop does not turn until it has sent them all.
   */
  function sendWhileBlocked(port: number, n: number) {
    const script = `
      const s = require('node:dgram').createSocket('udp4');
      const payload = Buffer.alloc(200, 120);
      let sent = 0;
      const timer = setInterval(() => {
        for (let i = 0; i < 20 && sent < ${n}; i++, sent++) s.send(payload, ${port}, '127.0.0.1');
        if (sent >= ${n}) {
          clearInterval(timer);
          s.send(Buffer.alloc(0), ${port}, '127.0.0.1', () => s.close());
        }
      }, 1);`;
    const result = spawnSync(process.execPath, ['-e', script], { stdio: 'inherit' });
    expect(result.status).toBe(0);
  }

  /**
   * A receiver that counts sendWhileBlocked's 200-byte datagrams, with a small kernel buffer
   * (1 MiB asked): it holds a fraction of what arrives while the loop is blocked.
   */
  const countingReceiver = () => {
    let received = 0;
    const r = udpBatch.open({
      host: '127.0.0.1',
      port: 0,
      recvBufferBytes: 1024 * 1024,
      onDatagram: (d) => {
        if (d.length === 200) received++;
      },
    });
    return { r, received: () => received };
  };

  it('keeps reading while the event loop is blocked: nothing is lost', async () => {
    const { r, received } = countingReceiver();
    open.push(r);
    sendWhileBlocked(r.port, 5000);
    await until(() => received() === 5000);
    expect(received()).toBe(5000);
  }, 20_000);

  it('receives on IPv6', async () => {
    const c = collector();
    const r = udpBatch.open({ host: '::1', port: 0, onDatagram: c.onDatagram });
    open.push(r);
    const s = sender('udp6');
    sockets.push(s);
    await send(s, 'v6:1|c', r.port, '::1');
    await until(() => c.datagrams.length === 1);
    expect(c.datagrams[0]!.toString()).toBe('v6:1|c');
  });

  it('names a port in use as EADDRINUSE, and frees its port on close', async () => {
    const first = udpBatch.open({ host: '127.0.0.1', port: 0, onDatagram: () => {} });
    open.push(first);
    let error: (Error & { code?: string }) | undefined;
    try {
      udpBatch.open({ host: '127.0.0.1', port: first.port, onDatagram: () => {} });
    } catch (e) {
      error = e as Error & { code?: string };
    }
    expect(error?.code).toBe('EADDRINUSE');
    expect(error?.message).toBe(`bind EADDRINUSE 127.0.0.1:${first.port}`);
    first.close();
    const again = udpBatch.open({ host: '127.0.0.1', port: first.port, onDatagram: () => {} });
    open.push(again);
    expect(again.port).toBe(first.port);
  });

  it('rejects a host that is not an IP address', () => {
    expect(() => udpBatch.open({ host: 'localhost', port: 0, onDatagram: () => {} })).toThrow(
      /not an IP address/,
    );
  });

  it('grants a receive buffer and reports it', () => {
    const r = udpBatch.open({
      host: '127.0.0.1',
      port: 0,
      recvBufferBytes: 256 * 1024,
      onDatagram: () => {},
    });
    open.push(r);
    // Linux doubles what was asked (for its bookkeeping), up to twice net.core.rmem_max.
    expect(r.recvBufferBytes).toBeGreaterThanOrEqual(256 * 1024);
  });

  it('hands over what it had read when closed', async () => {
    const { r, received } = countingReceiver();
    // Sent while the loop is blocked: read by the thread (or still in the socket), not yet
    // handed to JavaScript.
    sendWhileBlocked(r.port, 1000);
    r.close();
    expect(received()).toBe(1000);
  }, 20_000);

  it('takes a close() from onDatagram while close() hands over as done', async () => {
    let received = 0;
    const r = udpBatch.open({
      host: '127.0.0.1',
      port: 0,
      onDatagram: (d) => {
        if (d.length === 200) received++;
        r.close();
      },
    });
    sendWhileBlocked(r.port, 300);
    // Nothing was handed over yet: close() hands over, and the first datagram closes again.
    expect(received).toBe(0);
    expect(() => r.close()).not.toThrow();
    expect(received).toBe(1);
  }, 20_000);

  it('stops calling back once closed', async () => {
    const c = collector();
    const r = udpBatch.open({ host: '127.0.0.1', port: 0, onDatagram: c.onDatagram });
    const s = sender();
    sockets.push(s);
    await send(s, 'one:1|c', r.port);
    await until(() => c.datagrams.length === 1);
    r.close();
    r.close(); // twice is harmless
    await send(s, 'two:1|c', r.port).catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(c.datagrams.length).toBe(1);
    expect(r.recvBufferBytes).toBe(0);
  });

  it('can be closed from inside its own callback', async () => {
    let calls = 0;
    const r = udpBatch.open({
      host: '127.0.0.1',
      port: 0,
      onDatagram: () => {
        if (++calls === 5) r.close();
      },
    });
    const s = sender();
    sockets.push(s);
    // Sent while the loop is blocked, so that most arrive in one chunk: the datagrams after
    // the fifth in it are dropped, not handed over.
    sendWhileBlocked(r.port, 200);
    await until(() => calls >= 5);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(calls).toBe(5);
  });
});
