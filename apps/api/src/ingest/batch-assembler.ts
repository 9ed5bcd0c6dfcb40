// Turns a batch's validated events into COPY rows and the facts the batch must check at
// its end: changes it defines, changes it references, and each change's first applications.
import { copyText } from '@meshbench/db';
import type { ChangeEvent, ProbeEvent } from '@meshbench/schema';
import { FirstApplications } from '../domain/first-applications.ts';
import { AppError } from '../errors.ts';
import { formatTimestampUs, parseTimestampUs } from './timestamps.ts';

export interface NumberedEvent {
  line: number;
  event: ProbeEvent;
}

export interface BatchChange {
  event: ChangeEvent;
  atUs: number;
  line: number;
}

/** Postgres reads these as they are; anything else is rewritten to canonical UTC. */
const PLAIN_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?(Z|[+-]\d\d:\d\d)$/;
const CHUNK_CHARS = 64 * 1024;

const attrsText = (attrs: Record<string, unknown> | undefined) =>
  attrs === undefined ? '\\N' : copyText(JSON.stringify(attrs));

export class BatchAssembler {
  readonly changes = new Map<string, BatchChange>();
  /** change id -> first line that referenced it */
  readonly references = new Map<string, number>();
  readonly applications = new Map<string, FirstApplications>();
  readonly incidentRows: string[] = [];
  readonly lifecycleRows: string[] = [];
  accepted = 0;

  constructor(
    private readonly runId: string,
    private readonly batchId: number,
  ) {}

  private timestamp(value: string, line: number, field: string): { us: number; text: string } {
    const us = parseTimestampUs(value);
    if (us === null) {
      throw new AppError(
        400,
        'invalid_event',
        `line ${line}: "${field}" is not a valid RFC 3339 timestamp`,
        {
          line,
          field,
        },
      );
    }
    return { us, text: PLAIN_TIMESTAMP.test(value) ? value : formatTimestampUs(us) };
  }

  /**
   * Consumes the events and yields observation rows in chunks for COPY; every other kind
   * is kept for after the stream (they are few beside observations).
   */
  async *observationRows(batches: AsyncIterable<NumberedEvent[]>): AsyncGenerator<string> {
    let chunk = '';
    const { runId, batchId } = this;
    let change: string | undefined;
    let changeText = '';
    let apps = new FirstApplications();
    for await (const events of batches) {
      for (const { line, event } of events) {
        this.accepted++;
        switch (event.type) {
          case 'observation': {
            const at = this.timestamp(event.at, line, 'at');
            // Observations of one change come in runs: its lookups are made once per run.
            if (event.change !== change) {
              change = event.change;
              if (!this.references.has(change)) this.references.set(change, line);
              let found = this.applications.get(change);
              if (!found) {
                found = new FirstApplications();
                this.applications.set(change, found);
              }
              apps = found;
              changeText = `${runId}\t${copyText(change)}\t`;
            }
            apps.add(event.proxy, at.us);
            chunk += `${changeText}${copyText(event.proxy)}\t${copyText(event.node)}\t${at.text}\t${copyText(event.cause)}\t${attrsText(event.attrs)}\t${batchId}\n`;
            if (chunk.length >= CHUNK_CHARS) {
              yield chunk;
              chunk = '';
            }
            break;
          }
          case 'change':
            this.addChange(event, line);
            break;
          case 'incident': {
            const from = this.timestamp(event.from, line, 'from');
            const to = event.to === undefined ? undefined : this.timestamp(event.to, line, 'to');
            if (to && to.us < from.us) {
              throw new AppError(
                400,
                'invalid_event',
                `line ${line}: "to" is earlier than "from"`,
                {
                  line,
                  field: 'to',
                },
              );
            }
            this.incidentRows.push(
              `${runId}\t${copyText(event.kind)}\t${copyText(event.node)}\t${copyText(event.proxy)}\t${from.text}\t${to ? to.text : '\\N'}\t${attrsText(event.attrs)}\t${batchId}\n`,
            );
            break;
          }
          case 'lifecycle': {
            const at = this.timestamp(event.at, line, 'at');
            this.lifecycleRows.push(
              `${runId}\t${copyText(event.phase)}\t${copyText(event.entity)}\t${copyText(event.node)}\t${at.text}\t${attrsText(event.attrs)}\t${batchId}\n`,
            );
            break;
          }
        }
      }
    }
    if (chunk) yield chunk;
  }

  private addChange(event: ChangeEvent, line: number): void {
    const atUs = this.timestamp(event.at, line, 'at').us;
    const earlier = this.changes.get(event.id);
    if (earlier) {
      const field = differingField(earlier.event, earlier.atUs, event, atUs);
      if (field) {
        throw new AppError(
          409,
          'change_conflict',
          `line ${line}: change "${event.id}" was already given on line ${earlier.line} with a different "${field}"`,
          { line, field },
        );
      }
      return;
    }
    this.changes.set(event.id, { event, atUs, line });
  }
}

/** The first field in which two descriptions of one change differ, if any. */
export function differingField(
  a: { kind: string; target: string; action: string; expected?: number | null | undefined },
  aAtUs: number,
  b: { kind: string; target: string; action: string; expected?: number | null | undefined },
  bAtUs: number,
): string | undefined {
  if (a.kind !== b.kind) return 'kind';
  if (a.target !== b.target) return 'target';
  if (a.action !== b.action) return 'action';
  if (aAtUs !== bAtUs) return 'at';
  if ((a.expected ?? null) !== (b.expected ?? null)) return 'expected';
  return undefined;
}
