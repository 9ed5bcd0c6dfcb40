// Drives otel-sender.mjs, a child process recording and exporting with the OpenTelemetry
// JS SDK, one command at a time.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface SenderOptions {
  url: string;
  token: string;
  protocol?: 'proto' | 'json';
  temporality?: 'cumulative' | 'delta';
  resource: Record<string, string>;
  exponential?: string[];
  /** Explicit bucket boundaries of histograms, by name (else the SDK's default ones). */
  boundaries?: Record<string, number[]>;
  /** The reader's export interval; unless set, exports happen on flush only. */
  intervalMs?: number;
  /** The SDK's own log (diag, from info up) on stderr. */
  diag?: boolean;
}

export type SenderCommand =
  | { op: 'add' | 'updown' | 'record' | 'gauge'; name: string; value: number; attributes?: object }
  | { op: 'flush' }
  | { op: 'exit' };

export interface Sender {
  /** Sends a command and waits for the child to have done it. */
  send(command: SenderCommand): Promise<void>;
  /** Shuts the SDK down (a last export) and waits for the process to end. */
  close(): Promise<void>;
  /** What the process wrote on stderr so far (the SDK's log with `diag`). */
  stderr(): string;
}

export function otelSender(opts: SenderOptions): Sender {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [fileURLToPath(new URL('./otel-sender.mjs', import.meta.url))],
    {
      env: {
        ...process.env,
        OTLP_URL: opts.url,
        OTLP_TOKEN: opts.token,
        OTLP_PROTOCOL: opts.protocol ?? 'proto',
        OTLP_TEMPORALITY: opts.temporality ?? 'cumulative',
        OTLP_RESOURCE: JSON.stringify(opts.resource),
        OTLP_EXPONENTIAL: (opts.exponential ?? []).join(','),
        OTLP_BOUNDARIES: JSON.stringify(opts.boundaries ?? {}),
        ...(opts.intervalMs ? { OTLP_INTERVAL_MS: String(opts.intervalMs) } : {}),
        ...(opts.diag ? { OTLP_DIAG: '1' } : {}),
      },
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const replies = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const send = async (command: SenderCommand) => {
    child.stdin.write(`${JSON.stringify(command)}\n`);
    const reply = await Promise.race([replies.next(), exited.then(() => null)]);
    if (!reply || reply.done || reply.value !== 'ok') {
      throw new Error(`the OpenTelemetry sender failed on ${command.op}: ${stderr}`);
    }
  };
  return {
    send,
    async close() {
      await send({ op: 'exit' });
      await exited;
    },
    stderr: () => stderr,
  };
}
