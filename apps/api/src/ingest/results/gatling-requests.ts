// Gatling's REQUEST records counted into one load result, whichever simulation.log layout
// (text up to 3.12, binary from 3.13) they were read from. Both layouts hold a request's start
// and end as System.currentTimeMillis whole ms (the binary one as int offsets from the RUN
// record's start), so end - start is the response time to within 1 ms either side.
import { UNSPECIFIED_MODE } from '@meshbench/schema';
import { TickCounts } from '../../domain/tick-counts.ts';
import type { SampleDecoded } from './raw-samples.ts';
import { sampleResult } from './raw-samples.ts';
import { ResultFileError } from './result-file-error.ts';

/** What the RUN record says that is kept as labels. */
export interface GatlingRun {
  simulation: string;
  version: string;
}

export class GatlingRequests {
  /** Whole ms, each within 1 ms either side of the measured time. */
  private readonly counts = new TickCounts(1, { below: 1, above: 1 });
  private firstStart = Number.POSITIVE_INFINITY;
  private lastEnd = Number.NEGATIVE_INFINITY;
  private errors = 0;
  private readonly errorsByCode: Record<string, number> = {};
  private readonly names = new Set<string>();

  /** One REQUEST: epoch ms start and end (end >= start), OK or KO with its message. */
  add(name: string, start: number, end: number, ok: boolean, message: string): void {
    this.counts.add(end - start);
    if (start < this.firstStart) this.firstStart = start;
    if (end > this.lastEnd) this.lastEnd = end;
    if (!ok) {
      this.errors++;
      // Gatling's reader replaces \n, \r and \t in messages with spaces (LogFileReader sanitize).
      const text = message.replace(/[\n\r\t]/g, ' ').trim();
      const key = text === '' ? 'KO' : text.slice(0, 100);
      this.errorsByCode[key] = (this.errorsByCode[key] ?? 0) + 1;
    }
    if (this.names.size < 2) this.names.add(name);
  }

  get count(): number {
    return this.counts.count;
  }

  end(run: GatlingRun, unmapped: string[]): SampleDecoded {
    if (this.counts.count === 0) {
      throw new ResultFileError('no_results', 'the simulation.log has no REQUEST record');
    }
    const [name] = this.names;
    const result = sampleResult(this.counts, {
      mode: UNSPECIFIED_MODE,
      // From the first request's start to the last one's end.
      durationMs: this.lastEnd - this.firstStart,
      errors: this.errors,
      errorsByCode: this.errorsByCode,
      labels: {
        tool: 'gatling',
        ...(run.simulation ? { simulation: run.simulation } : {}),
        ...(run.version ? { gatlingVersion: run.version } : {}),
        ...(this.names.size === 1 && name !== undefined ? { request: name } : {}),
      },
      startedAt: new Date(this.firstStart).toISOString(),
    });
    return { results: [result], unmapped };
  }
}
