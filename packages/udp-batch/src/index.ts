// Loads the udp-batch addon (native/udp_batch.c) and opens receivers with it. The addon is
// optional: where it did not build, `loadUdpBatch()` says why and callers use node:dgram.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Binding {
  CHUNKS: number;
  CHUNK_BYTES: number;
  open(
    host: string,
    port: number,
    ipv6: boolean,
    recvBufferBytes: number,
    onChunk: (index: number, end: number) => void,
  ): NativeReceiver;
  close(receiver: NativeReceiver): void;
  localPort(receiver: NativeReceiver): number;
  recvBufferSize(receiver: NativeReceiver): number;
}

interface NativeReceiver {
  chunks: Uint8Array[];
}

export interface BatchReceiverOptions {
  /** An IP address (v4, or v6 when it holds a ':'); names are resolved by the caller. */
  host: string;
  /** 0: a free port chosen by the OS. */
  port: number;
  /** SO_RCVBUF to ask for (the kernel caps it at net.core.rmem_max); 0 keeps the default. */
  recvBufferBytes?: number;
  /**
   * Called once per datagram, in the order they arrived. The Buffer is a view of memory
   * that is reused once the current chunk is done: copy what must outlive the call. An
   * exception thrown here is an uncaught exception.
   */
  onDatagram(datagram: Buffer): void;
}

export interface BatchReceiver {
  readonly port: number;
  /** The receive buffer the kernel granted (Linux reports twice what was asked). */
  readonly recvBufferBytes: number;
  /** Memory the reading thread fills while JavaScript is busy, besides the kernel's buffer. */
  readonly queueBytes: number;
  /**
   * Stops the reading thread, hands over the datagrams it had read and those still in the
   * socket (not when called from inside onDatagram), and closes the socket; the port is
   * free when this returns.
   */
  close(): void;
}

export type UdpBatch =
  | { available: true; open(options: BatchReceiverOptions): BatchReceiver }
  | { available: false; reason: string };

function addonPath(): string | null {
  const local = fileURLToPath(new URL('../dist/udp_batch.node', import.meta.url));
  if (existsSync(local)) return local;
  // Bundled into another package's build: find this package through node_modules.
  try {
    const pkg = createRequire(import.meta.url).resolve('@meshbench/udp-batch/package.json');
    const bundled = join(dirname(pkg), 'dist', 'udp_batch.node');
    return existsSync(bundled) ? bundled : null;
  } catch {
    return null;
  }
}

let loaded: UdpBatch | undefined;

export function loadUdpBatch(): UdpBatch {
  if (loaded) return loaded;
  const path = addonPath();
  if (path === null) {
    loaded = {
      available: false,
      reason: 'the udp-batch addon is not built (packages/udp-batch: a C compiler is needed)',
    };
    return loaded;
  }
  let binding: Binding;
  try {
    binding = createRequire(import.meta.url)(path) as Binding;
  } catch (error) {
    loaded = {
      available: false,
      reason: `the udp-batch addon did not load: ${(error as Error).message}`,
    };
    return loaded;
  }
  loaded = {
    available: true,
    open(options) {
      let views: Buffer[] = [];
      let open = true;
      let closing = false;
      const receiver = binding.open(
        options.host,
        options.port,
        options.host.includes(':'),
        options.recvBufferBytes ?? 0,
        (index, end) => {
          // Records: a 4-byte little-endian length, then the datagram.
          const chunk = views[index] as Buffer;
          let at = 0;
          // onDatagram may close the receiver: the rest of the chunk is then dropped.
          while (at < end && open) {
            const length = chunk.readUInt32LE(at);
            options.onDatagram(chunk.subarray(at + 4, at + 4 + length));
            at += 4 + length;
          }
        },
      );
      views = receiver.chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.length));
      const port = binding.localPort(receiver);
      return {
        port,
        queueBytes: binding.CHUNKS * binding.CHUNK_BYTES,
        get recvBufferBytes() {
          return open ? binding.recvBufferSize(receiver) : 0;
        },
        close() {
          // A close() from onDatagram while close() hands over: the rest is dropped.
          if (closing) {
            open = false;
            return;
          }
          closing = true;
          // What it hands over is delivered during this call, while `open` still holds.
          binding.close(receiver);
          open = false;
        },
      };
    },
  };
  return loaded;
}
