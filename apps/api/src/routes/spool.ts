// What an export has written and its client has not yet read: the first bytes in memory,
// the rest in a file of its own, so that the export (and the database connection its
// transaction holds, on the embedded database the only one) goes on at the database's
// pace and ends, whatever the client does. A client that pauses costs disk, not the service.

import type { FileHandle } from 'node:fs/promises';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';

/** Bytes kept in memory before the rest goes to the file. */
export const SPOOL_MEMORY_BYTES = 4 * 1024 * 1024;
/** Bytes read back from the file at a time. */
const READ_BYTES = 256 * 1024;

let spools = 0;

/**
 * Chunks written in order, read out to `out` in the same order with its backpressure.
 * `write` waits only for memory or the disk, never for the client.
 */
export class Spool {
  private readonly memory: Buffer[] = [];
  private memoryBytes = 0;
  private file: { handle: FileHandle; path: string; written: number; read: number } | undefined;
  /** File writes in order: each waits for the one before. */
  private writing: Promise<void> = Promise.resolve();
  private ended = false;
  private closed = false;
  private wake: (() => void) | undefined;
  /** Bytes in the file now (written and not yet read back): what a paused client costs. */
  spilled = 0;

  constructor(
    private readonly out: Writable,
    private readonly memoryLimit = SPOOL_MEMORY_BYTES,
  ) {
    out.once('close', () => void this.close());
    this.pump().catch((error) => out.destroy(error as Error));
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.closed) throw new Error('the client went away');
    if (!this.file && this.memoryBytes + chunk.length <= this.memoryLimit) {
      this.memory.push(chunk);
      this.memoryBytes += chunk.length;
      this.notify();
      return;
    }
    // Past the memory, and after the first byte that went to the file: everything goes
    // to the file until it is read back whole, so that the order is kept.
    this.writing = this.writing.then(async () => {
      if (this.closed) return;
      if (!this.file) {
        const path = join(tmpdir(), `meshbench-export-${process.pid}-${++spools}.spool`);
        this.file = { handle: await open(path, 'w+', 0o600), path, written: 0, read: 0 };
      }
      const file = this.file;
      await file.handle.write(chunk, 0, chunk.length, file.written);
      file.written += chunk.length;
      this.spilled += chunk.length;
      this.notify();
    });
    await this.writing;
    if (this.closed) throw new Error('the client went away');
  }

  /** No more chunks: `out` ends once all are read out. */
  end(): void {
    this.ended = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async pump(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      let chunk: Buffer | undefined = this.memory.shift();
      if (chunk) {
        this.memoryBytes -= chunk.length;
      } else if (this.file && this.file.read < this.file.written) {
        const file = this.file;
        const size = Math.min(READ_BYTES, file.written - file.read);
        const { buffer, bytesRead } = await file.handle.read(
          Buffer.allocUnsafe(size),
          0,
          size,
          file.read,
        );
        file.read += bytesRead;
        this.spilled -= bytesRead;
        chunk = buffer.subarray(0, bytesRead);
        if (file.read === file.written) await this.dropFileIfDone();
      } else if (this.ended && !this.file) {
        await this.writing;
        if (this.memory.length > 0 || this.file) continue;
        this.out.end();
        return;
      } else {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        continue;
      }
      if (this.closed) return;
      if (!this.out.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            this.out.off('drain', done);
            this.out.off('close', done);
            resolve();
          };
          this.out.once('drain', done);
          this.out.once('close', done);
        });
      }
    }
  }

  /** The file read back whole, with no write pending: it goes, and memory serves again. */
  private async dropFileIfDone(): Promise<void> {
    await this.writing;
    const file = this.file;
    if (!file || file.read < file.written) return;
    this.file = undefined;
    await file.handle.close().catch(() => {});
    await rm(file.path, { force: true });
  }

  /** The client went away (or the export failed): the file goes at once. */
  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.notify();
    // Writes not yet begun see `closed` and make no file; one under way finishes first.
    await this.writing.catch(() => {});
    const file = this.file;
    this.file = undefined;
    if (file) {
      await file.handle.close().catch(() => {});
      await rm(file.path, { force: true });
    }
  }
}
