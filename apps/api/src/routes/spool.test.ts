import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Spool } from './spool.ts';

const spoolFiles = () =>
  readdirSync(tmpdir()).filter((f) => f.startsWith(`meshbench-export-${process.pid}-`));

describe('Spool', () => {
  it('keeps the order across memory, the file and memory again, and ends with the writer', async () => {
    const out = new PassThrough({ highWaterMark: 8 });
    const spool = new Spool(out, 64); // 64 bytes in memory, the rest to the file
    const chunks = Array.from({ length: 200 }, (_, i) => Buffer.from(`line ${i}\n`));
    // Nothing reads `out` while the writer writes: it never waits for a reader.
    for (const chunk of chunks.slice(0, 150)) await spool.write(chunk);
    expect(spool.spilled).toBeGreaterThan(0);
    const read: Buffer[] = [];
    out.on('data', (d: Buffer) => read.push(d));
    const ended = new Promise((r) => out.once('end', r));
    // Drained, the file goes; later chunks are in memory, after the file's.
    await new Promise((r) => setTimeout(r, 50));
    expect(spool.spilled).toBe(0);
    for (const chunk of chunks.slice(150)) await spool.write(chunk);
    spool.end();
    await ended;
    expect(Buffer.concat(read).toString()).toBe(Buffer.concat(chunks).toString());
    expect(spoolFiles()).toEqual([]);
  });

  it('drops its file and refuses more when the reader goes away', async () => {
    const out = new PassThrough({ highWaterMark: 8 });
    const spool = new Spool(out, 16);
    for (let i = 0; i < 50; i++) await spool.write(Buffer.from(`chunk ${i}\n`));
    expect(spoolFiles()).toHaveLength(1);
    const path = `${tmpdir()}/${spoolFiles()[0]}`;
    out.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(path)).toBe(false);
    await expect(spool.write(Buffer.from('more'))).rejects.toThrow(/went away/);
  });
});
