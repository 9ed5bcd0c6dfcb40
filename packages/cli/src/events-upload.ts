// `meshbench events`: a file of NDJSON events posted in batches so that, however often it
// is sent and however it is cut, every line is stored once. The file is named by its
// SHA-256 (its source), each batch by the lines it holds; the server records both with
// the batch, in the batch's own transaction, and tells which lines of a source it holds.
// So a re-run after a failure or a crash (a batch in flight was rolled back, or committed
// without its answer arriving), or with another --batch-lines, sends only what is missing.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { ApiRequestError, type Client } from '@meshbench/client';
import type { IngestResult } from '@meshbench/schema';

export interface EventsUpload {
  /** SHA-256 of the file: what the server knows it by. */
  source: string;
  lines: number;
  batches: number;
  accepted: number;
  /** Batches the server had already stored under their key (a retry whose answer was lost). */
  duplicateBatches: number;
  /** Lines skipped because a batch of an earlier run of the command had stored them. */
  alreadyStoredLines: number;
}

type Range = [first: number, last: number];

/** The parts of lines first..last that no stored range covers, in order. */
export function unstoredRanges(first: number, last: number, stored: readonly Range[]): Range[] {
  const out: Range[] = [];
  let from = first;
  for (const [a, b] of stored) {
    if (b < from) continue;
    if (a > last) break;
    if (a > from) out.push([from, a - 1]);
    from = Math.max(from, b + 1);
    if (from > last) return out;
  }
  if (from <= last) out.push([from, last]);
  return out;
}

/**
 * The file's lines, each with its newline (the last one may have none), in one pass: a
 * line cut across chunks is kept as its parts until its end, so no byte is copied twice.
 */
export async function* fileLines(path: string): AsyncGenerator<Buffer> {
  let carry: Buffer[] = [];
  for await (const chunk of createReadStream(path, {
    highWaterMark: 1024 * 1024,
  }) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
      const piece = chunk.subarray(from, nl + 1);
      if (carry.length > 0) {
        carry.push(piece);
        yield Buffer.concat(carry);
        carry = [];
      } else yield piece;
      from = nl + 1;
    }
    if (from < chunk.length) carry.push(chunk.subarray(from));
  }
  if (carry.length > 0) yield Buffer.concat(carry);
}

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function uploadEvents(opts: {
  api: Client;
  runId: string;
  /** A path, or a stream (standard input), kept in a temporary file first. */
  file: string | NodeJS.ReadableStream;
  batchLines: number;
  log: (line: string) => void;
}): Promise<EventsUpload> {
  const { api, runId, batchLines, log } = opts;
  let path: string;
  let spool: string | undefined;
  if (typeof opts.file === 'string') path = opts.file;
  else {
    // A stream cannot be read twice (hashed, then sent): it is kept whole first.
    spool = mkdtempSync(join(tmpdir(), 'meshbench-events-'));
    path = join(spool, 'events.ndjson');
    await pipeline(opts.file, createWriteStream(path));
  }
  try {
    const source = await sha256(path);
    const storedOf = async (): Promise<Range[]> =>
      (await api.runs.eventSource(runId, source)).lines;
    let stored = await storedOf();
    let next = 0; // the first stored range that may still lie ahead of the line read
    const result: EventsUpload = {
      source,
      lines: 0,
      batches: 0,
      accepted: 0,
      duplicateBatches: 0,
      alreadyStoredLines: 0,
    };

    /** Posts lines first.. (the batch's lines, in order); re-plans around stored lines. */
    const post = async (first: number, lines: Buffer[], tries = 0): Promise<void> => {
      const last = first + lines.length - 1;
      let answer: IngestResult;
      try {
        answer = await api.runs.postEvents(runId, {
          body: gzipSync(Buffer.concat(lines)),
          contentType: 'application/x-ndjson',
          contentEncoding: 'gzip',
          query: { source, lines: `${first}-${last}` },
          idempotencyKey: `${source}:${first}-${last}`,
        });
      } catch (error) {
        // Another run of the command stored some of these lines meanwhile: send the rest.
        if (
          !(error instanceof ApiRequestError && error.code === 'lines_already_stored') ||
          tries > 5
        )
          throw error;
        stored = await storedOf();
        next = 0;
        const rest = unstoredRanges(first, last, stored);
        result.alreadyStoredLines += lines.length - rest.reduce((n, [a, b]) => n + b - a + 1, 0);
        log(`lines ${first}-${last}: some were stored meanwhile; sending the others`);
        for (const [a, b] of rest) await post(a, lines.slice(a - first, b - first + 1), tries + 1);
        return;
      }
      result.batches++;
      result.accepted += answer.accepted;
      if (answer.duplicate) result.duplicateBatches++;
      log(
        `lines ${first}-${last}: ${answer.accepted} events ${answer.duplicate ? 'already stored' : 'stored'}`,
      );
    };

    let batch: Buffer[] = [];
    let batchFirst = 0;
    let n = 0;
    for await (const line of fileLines(path)) {
      n++;
      while (next < stored.length && (stored[next] as Range)[1] < n) next++;
      const range = stored[next];
      if (range && range[0] <= n) {
        result.alreadyStoredLines++;
        if (batch.length > 0) await post(batchFirst, batch);
        batch = [];
        continue;
      }
      if (batch.length === 0) batchFirst = n;
      batch.push(line);
      if (batch.length >= batchLines) {
        await post(batchFirst, batch);
        batch = [];
      }
    }
    if (batch.length > 0) await post(batchFirst, batch);
    result.lines = n;
    return result;
  } finally {
    if (spool) rmSync(spool, { recursive: true, force: true });
  }
}
