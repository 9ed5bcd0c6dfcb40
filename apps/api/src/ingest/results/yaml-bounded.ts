// YAML result files parsed off the event loop, within a size, time and memory budget.
// The yaml library is superlinear on some inputs (measured with yaml 2.9.1: 64 KiB of
// `k: v` lines 1.4 s, 64 KiB of `[` 4.7 s, 1 MiB of `a: a: ...` 60 s), so it never runs
// on the thread that answers requests: each parse gets a worker thread with its own heap
// limit, and is ended when it overruns its time.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { ResultFileError } from './result-file-error.ts';

/** Largest YAML result file read (SMP's example is 434 bytes, Nighthawk's YAML 9 KB). */
export const YAML_MAX_BYTES = 1024 * 1024;
/** Longest a YAML parse may take before the file is refused as too complex. */
export const YAML_TIMEOUT_MS = 5000;
/** Heap of the parsing thread: a file that needs more is refused, the API keeps running. */
const YAML_HEAP_MB = 128;
/** The yaml library's own bound on alias expansion (its default, stated here on purpose). */
const YAML_MAX_ALIASES = 100;
/** YAML parses at once; more wait for a free slot. */
const MAX_PARALLEL = 2;

const yamlPath = createRequire(import.meta.url).resolve('yaml');

// CommonJS run by the workers: plain JavaScript, so it needs neither the bundler nor a
// TypeScript loader. Only plain data crosses back (the core schema makes no Dates).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const YAML = require(workerData.yamlPath);
parentPort.on('message', (text) => {
  try {
    const doc = YAML.parse(text, { maxAliasCount: workerData.maxAliasCount });
    parentPort.postMessage({ ok: true, doc });
  } catch (err) {
    const line = err && err.linePos && err.linePos[0] ? err.linePos[0].line : undefined;
    const message = String((err && err.message) || err).split('\\n')[0];
    parentPort.postMessage({ ok: false, message, line });
  }
});
`;

type Outcome = { ok: true; doc: unknown } | { ok: false; message: string; line?: number };

// Workers are kept between files (starting one costs 10-100 ms on the main thread), at
// most MAX_PARALLEL of them; one that overran its time or heap is ended and not reused.
const idle: Worker[] = [];
let busy = 0;
const waiting: Array<() => void> = [];

async function take(): Promise<Worker> {
  if (busy >= MAX_PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  busy++;
  const worker = idle.pop() ?? started();
  worker.ref();
  return worker;
}

function started(): Worker {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { yamlPath, maxAliasCount: YAML_MAX_ALIASES },
    resourceLimits: { maxOldGenerationSizeMb: YAML_HEAP_MB, stackSizeMb: 4 },
    stdout: true,
    stderr: true,
  });
  worker.once('exit', () => {
    const i = idle.indexOf(worker);
    if (i >= 0) idle.splice(i, 1);
  });
  return worker;
}

function give(worker: Worker, healthy: boolean): void {
  busy--;
  if (healthy) {
    // An idle worker must not keep the process alive.
    worker.unref();
    idle.push(worker);
  } else void worker.terminate();
  waiting.shift()?.();
}

/**
 * The YAML document in `text`, or a ResultFileError: `too_large` past YAML_MAX_BYTES (before
 * any parsing), `invalid_value` with the line where the YAML breaks, `too_complex` when the
 * parse outruns YAML_TIMEOUT_MS or its heap.
 */
export async function parseYaml(
  text: string,
  limits: { maxBytes?: number; timeoutMs?: number } = {},
): Promise<unknown> {
  const maxBytes = limits.maxBytes ?? YAML_MAX_BYTES;
  const timeoutMs = limits.timeoutMs ?? YAML_TIMEOUT_MS;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    throw new ResultFileError(
      'too_large',
      `the file would be read as YAML, and YAML result files are limited to ${maxBytes} bytes (this one has ${bytes}); send JSON for larger results`,
    );
  }
  const outcome = await inWorker(await take(), text.replace(/^\uFEFF/, ''), timeoutMs);
  if (outcome.ok) return outcome.doc;
  throw new ResultFileError(
    'invalid_value',
    `invalid YAML: ${outcome.message}`,
    outcome.line ? { line: outcome.line } : {},
  );
}

function inWorker(worker: Worker, text: string, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const tooComplex = (why: string) =>
      new ResultFileError(
        'too_complex',
        `the YAML could not be read within the limits for YAML result files (${why})`,
      );
    const onMessage = (outcome: Outcome) => finish(true, () => resolve(outcome));
    const onError = (error: Error & { code?: string }) =>
      finish(false, () =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? tooComplex(`more than ${YAML_HEAP_MB} MB of memory`)
            : error,
        ),
      );
    const onExit = (code: number) =>
      finish(false, () =>
        reject(new Error(`the YAML worker exited with code ${code} before answering`)),
      );
    const timer = setTimeout(
      () => finish(false, () => reject(tooComplex(`more than ${timeoutMs} ms`))),
      timeoutMs,
    );
    function finish(healthy: boolean, then: () => void): void {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      give(worker, healthy);
      then();
    }
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(text);
  });
}
