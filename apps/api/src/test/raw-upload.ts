// An upload written byte by byte on a socket of its own, for the clients fetch() cannot
// play: one that goes away mid-body, one that stalls, one that trickles.
import { connect, type Socket } from 'node:net';

export interface RawUpload {
  socket: Socket;
  /** Everything the server wrote back, once the connection is closed (by either side). */
  response: Promise<string>;
  /** Resolves when the server has written its first byte back. */
  answered: Promise<void>;
  send(bytes: string | Buffer): void;
  /** Closes the socket at once, as a client that crashed or gave up would. */
  abort(): void;
}

/**
 * Starts `POST path` (or another method) announcing `contentLength` bytes of body and sends `start` of it; the
 * rest is the caller's to send, or not.
 */
export function rawUpload(
  url: string,
  path: string,
  options: {
    /** A bearer token; '' sends none. */
    token: string;
    contentLength: number;
    start: string | Buffer;
    contentType?: string;
    headers?: Record<string, string>;
    method?: string;
  },
): Promise<RawUpload> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      const head = [
        `${options.method ?? 'POST'} ${path} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        ...(options.token ? [`Authorization: Bearer ${options.token}`] : []),
        `Content-Type: ${options.contentType ?? 'application/x-ndjson'}`,
        `Content-Length: ${options.contentLength}`,
        ...Object.entries(options.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
        '',
        '',
      ].join('\r\n');
      socket.write(head);
      socket.write(options.start);
      resolve(upload);
    });
    socket.once('error', reject);
    const chunks: Buffer[] = [];
    let firstByte: () => void = () => {};
    const answered = new Promise<void>((r) => {
      firstByte = r;
    });
    const response = new Promise<string>((r) => {
      socket.on('data', (d) => {
        chunks.push(d);
        firstByte();
      });
      socket.on('error', () => {});
      socket.on('close', () => r(Buffer.concat(chunks).toString('utf8')));
    });
    const upload: RawUpload = {
      socket,
      response,
      answered,
      send: (bytes) => socket.write(bytes),
      abort: () => socket.resetAndDestroy(),
    };
  });
}

/** The status code of a raw HTTP response, 0 when there was none. */
export const statusOf = (response: string) =>
  Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);

/** A header of a raw HTTP response. */
export const headerOf = (response: string, name: string) =>
  new RegExp(`^${name}: *(.*)$`, 'im').exec(response.split('\r\n\r\n')[0] ?? '')?.[1]?.trim();
