// OTLP/HTTP logs: the records that are meshbench events go to the events use case as one
// batch per run, every run's batch in one transaction (the events API's validation,
// idempotency, and atomicity across the whole request), each event's run named by its
// meshbench.run, else matched by deployment.environment and time to a run of the token's
// project. Records that are not meshbench events, or that reach no run the token may
// write, are rejected in partial_success with the reason.
import { createHash } from 'node:crypto';
import { AppError } from '../errors.ts';
import { checkLogEvent, type LogEvent, logEventOf } from '../ingest/otlp/log-events.ts';
import {
  decodeLogsJson,
  decodeLogsProtobuf,
  recordPath,
  type WireLogRecord,
} from '../ingest/otlp/otlp-logs.ts';
import { OtlpDecodeError } from '../ingest/otlp/otlp-message.ts';
import type { RunsRepository, RunWindow } from '../repositories/runs.repository.ts';
import { type IngestService, PartFailure } from './ingest.service.ts';
import { NOT_WRITABLE } from './metrics-ingest.service.ts';
import type { OtlpFormat } from './otlp.service.ts';

export const LOGS_MATCHED_NO_RUN =
  "matched no run: set the attribute meshbench.run to a run id or slug, or the resource's deployment.environment to a run's environment within its time window";

export interface LogsResult {
  rejected: number;
  message: string;
}

type EventRecord = Extract<LogEvent, { kind: 'event' }>;

/** The most reasons named in one answer (each with its count). */
const MAX_REASONS = 10;

export function otlpLogsService(deps: {
  runs: Pick<RunsRepository, 'windowsByRef' | 'windowsIn'>;
  ingest: Pick<IngestService, 'ingestTogether'>;
}) {
  const { runs, ingest } = deps;
  const counters = { requests: 0, records: 0, events: 0, rejected: 0, duplicates: 0 };

  /** Each event's run, or the reason it has none the writer may write. */
  async function runsOf(
    events: EventRecord[],
    projectId: string | null,
  ): Promise<(RunWindow | string)[]> {
    const refs = [...new Set(events.map((e) => e.runRef).filter((r): r is string => !!r))];
    const found = await runs.windowsByRef(refs);
    const byRef = new Map<string, RunWindow>();
    for (const ref of refs) {
      const run = found.find((r) => r.id === ref.toLowerCase() || r.slug === ref);
      if (run && (projectId === null || run.projectId === projectId)) byRef.set(ref, run);
    }
    const untagged = events.filter((e) => !e.runRef && e.env !== null);
    let windows: RunWindow[] = [];
    if (untagged.length > 0) {
      let from = Number.POSITIVE_INFINITY;
      let to = Number.NEGATIVE_INFINITY;
      for (const e of untagged) {
        const ms = (e.record.timeUs || e.record.observedUs) / 1000;
        from = Math.min(from, ms);
        to = Math.max(to, ms);
      }
      windows = await runs.windowsIn(
        [...new Set(untagged.map((e) => e.env as string))],
        from,
        to,
        projectId,
      );
    }
    return events.map((e) => {
      if (e.runRef) return byRef.get(e.runRef) ?? NOT_WRITABLE;
      if (e.env === null) return LOGS_MATCHED_NO_RUN;
      const ms = (e.record.timeUs || e.record.observedUs) / 1000;
      // Latest started first (windowsIn's order): the run whose window holds the record.
      const run = windows.find(
        (w) =>
          w.environment === e.env &&
          w.startedMs <= ms &&
          (w.finishedMs === null || ms <= w.finishedMs),
      );
      return run ?? LOGS_MATCHED_NO_RUN;
    });
  }

  /**
   * One run's events as an events-API batch. Its idempotency key is the digest of the batch
   * itself, so the same records exported again (a retry, in either encoding) are stored once.
   */
  function batchOf(runId: string, records: EventRecord[]) {
    // NDJSON in pieces of about 64 KiB, as a body arrives from a socket: never one string
    // or buffer of the whole batch.
    const chunks: Buffer[] = [];
    const hash = createHash('sha256');
    let text = '';
    for (let i = 0; i < records.length; i++) {
      text += `${i > 0 ? '\n' : ''}${JSON.stringify((records[i] as EventRecord).event)}`;
      if (text.length >= 65536 || i === records.length - 1) {
        const chunk = Buffer.from(text);
        hash.update(chunk);
        chunks.push(chunk);
        text = '';
      }
    }
    const digest = hash.digest('hex');
    return {
      runRef: runId,
      input: {
        body: (async function* () {
          yield* chunks;
        })(),
        format: 'ndjson' as const,
        idempotencyKey: `otlp-logs:${digest}`,
        digest: () => digest,
      },
    };
  }

  /**
   * Every run's events in one transaction (all stored or none); a failure that the events
   * use case names by a line of a run's batch is named by its log record instead.
   */
  async function store(byRun: Map<string, EventRecord[]>) {
    const lists = [...byRun.values()];
    try {
      return await ingest.ingestTogether([...byRun].map(([runId, list]) => batchOf(runId, list)));
    } catch (failure) {
      const part = failure instanceof PartFailure ? failure.part : undefined;
      const error = failure instanceof PartFailure ? failure.cause : failure;
      const line = error instanceof AppError ? error.where.line : undefined;
      const record = part !== undefined && line !== undefined ? lists[part]?.[line - 1] : undefined;
      if (!(error instanceof AppError) || !record) throw error;
      const message = error.message.replace(/^line \d+: /, '');
      const { field } = error.where;
      throw new AppError(
        error.statusCode,
        error.code,
        `log record ${recordPath(record.record)} (meshbench.${record.event.type}): ${message}`,
        field ? { field } : {},
      );
    }
  }

  return {
    counters,
    async export(
      body: Buffer,
      format: OtlpFormat,
      scope: { projectId: string | null },
    ): Promise<LogsResult> {
      counters.requests++;
      let records: WireLogRecord[];
      try {
        records =
          format === 'protobuf' ? decodeLogsProtobuf(body) : decodeLogsJson(body.toString('utf8'));
      } catch (error) {
        if (error instanceof OtlpDecodeError)
          throw new AppError(400, 'malformed_body', error.message);
        throw error;
      }
      counters.records += records.length;
      const reasons = new Map<string, number>();
      const reject = (why: string) => reasons.set(why, (reasons.get(why) ?? 0) + 1);
      const events: EventRecord[] = [];
      for (const record of records) {
        const mapped = logEventOf(record);
        if (mapped.kind === 'other') reject(mapped.reason);
        else events.push(mapped);
      }
      const byRun = new Map<string, EventRecord[]>();
      const unrouted: EventRecord[] = [];
      const targets = events.length > 0 ? await runsOf(events, scope.projectId) : [];
      for (let i = 0; i < targets.length; i++) {
        const target = targets[i] as RunWindow | string;
        if (typeof target === 'string') {
          reject(target);
          unrouted.push(events[i] as EventRecord);
          continue;
        }
        const list = byRun.get(target.id);
        if (list) list.push(events[i] as EventRecord);
        else byRun.set(target.id, [events[i] as EventRecord]);
      }
      // A request's events are checked before anything is stored, as the events batch checks
      // its own: the events of one run are one batch (all or nothing), checked there; events
      // of several runs, and those that reach none, are checked here first, so that a
      // malformed one is a 400 that stores nothing anywhere.
      for (const event of byRun.size > 1 ? events : unrouted) checkLogEvent(event);
      let stored = 0;
      let duplicates = 0;
      const results = byRun.size > 0 ? await store(byRun) : [];
      const lists = [...byRun.values()];
      results.forEach((result, i) => {
        if (result.duplicate) duplicates += lists[i]?.length ?? 0;
        else stored += result.accepted;
      });
      counters.events += stored;
      counters.duplicates += duplicates;
      const rejected = [...reasons.values()].reduce((a, b) => a + b, 0);
      counters.rejected += rejected;
      const named = [...reasons].sort((a, b) => b[1] - a[1]);
      const notes = [
        ...(rejected > 0
          ? [
              `rejected ${named
                .slice(0, MAX_REASONS)
                .map(([why, n]) => `${n} log record(s): ${why}`)
                .join(
                  '; ',
                )}${named.length > MAX_REASONS ? `; and ${named.length - MAX_REASONS} more reasons` : ''}`,
            ]
          : []),
        ...(duplicates > 0
          ? [`${duplicates} event(s) were stored before (a retried export): stored once`]
          : []),
      ];
      return { rejected, message: notes.join('; ') };
    },
  };
}
export type OtlpLogsService = ReturnType<typeof otlpLogsService>;
