// HdrHistogram interval logs (what HdrHistogram's HistogramLogWriter, jHiccup and wrk2's
// HDR-logging forks write) to one decoded interval result per step and generator.
// Follows HdrHistogram/HdrHistogram src/main/java/org/HdrHistogram/HistogramLogReader.java and
// HistogramLogWriter.java (log format 1.3) and HdrHistogram/HdrHistogramJS
// src/HistogramLogReader.ts (v3.0.1): '#' lines are comments, "#[StartTime: s" and
// "#[BaseTime: s" place relative timestamps (relative when more than a year before StartTime),
// the legend line is skipped, and each interval line is
// [Tag=tag,]StartTimestamp,Interval_Length,Interval_Max,Interval_Compressed_Histogram
// (seconds, seconds, Interval_Max in ms by both writers' default ratio, base64 V2 compressed).
//
// A line's Tag names its step: `key:value` pairs joined by ';' (keys mode, connections,
// targetRps, generator; e.g. Tag=mode:both;connections:64;targetRps:1000;generator:g1), or a
// bare word taken as the mode. What a Tag (or an untagged line) does not say comes from the
// query (mode, connections, targetRps, generator). Lines of one step and generator form one
// load result, their starts strictly increasing.

import type { HdrValueUnit } from '@meshbench/schema';
import {
  MAX_DURATION_MS,
  TIMESTAMP_RANGE,
  timestampRangeProblem,
  UNSPECIFIED_MODE,
} from '@meshbench/schema';
import { decodeHdr, HdrDecodeError, hdrStats } from '../../domain/hdr.ts';
import { UNIT_PER_MS } from '../../domain/load-steps.ts';
import { runSliced, runWhole } from '../../domain/slices.ts';
import type {
  DecodedInterval,
  DecodedIntervalResult,
  DecodedIntervalResults,
} from './interval-results.ts';
import { ResultFileError } from './result-file-error.ts';

/** What the query says of the file's steps, for lines whose Tag does not. */
export interface StepDefaults {
  mode?: string | undefined;
  connections?: number | undefined;
  targetRps?: number | undefined;
  generator?: string | undefined;
  generatorCpu?: number | undefined;
  unit?: HdrValueUnit | undefined;
}

/** Whether a text opens like an HdrHistogram log (its first lines, comments or intervals). */
export function looksLikeHdrLog(head: string): boolean {
  return (
    /^#\[(?:StartTime: |BaseTime: |Histogram log format version )/m.test(head) ||
    /^Tag=[^,\s]*,\d/m.test(head) ||
    /^\d+(?:\.\d+)?,\d+(?:\.\d+)?,\d+(?:\.\d+)?,HIST[A-Za-z0-9+/]/m.test(head)
  );
}

const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const YEAR_S = 365 * 24 * 3600;
const FIELDS = [
  'StartTimestamp',
  'Interval_Length',
  'Interval_Max',
  'Interval_Compressed_Histogram',
];
const TAG_KEYS = new Set(['mode', 'connections', 'targetRps', 'generator']);

type Step = Pick<DecodedIntervalResult, 'mode' | 'connections' | 'targetRps' | 'generator'>;

function stepOf(tag: string | null, defaults: StepDefaults, line: number): Step {
  const step: Step = {
    mode: defaults.mode ?? UNSPECIFIED_MODE,
    connections: defaults.connections ?? null,
    targetRps: defaults.targetRps ?? null,
    generator: defaults.generator ?? null,
  };
  if (tag === null || tag === '') return step;
  if (!tag.includes(':')) return { ...step, mode: tag };
  for (const pair of tag.split(';')) {
    const at = pair.indexOf(':');
    const key = pair.slice(0, at);
    const value = pair.slice(at + 1);
    if (at < 1 || !TAG_KEYS.has(key) || value === '') {
      throw new ResultFileError(
        'invalid_value',
        `line ${line}: Tag "${tag}": "${pair}" is not key:value with a key of mode, connections, targetRps, generator`,
        { line, field: 'Tag' },
      );
    }
    if (key === 'mode' || key === 'generator') step[key] = value.slice(0, 200);
    else {
      const n = Number(value);
      if (!NUMBER.test(value) || n < 0 || (key === 'connections' && !Number.isInteger(n))) {
        throw new ResultFileError(
          'invalid_value',
          `line ${line}: Tag "${tag}": ${key} must be a non-negative number`,
          {
            line,
            field: `Tag.${key}`,
          },
        );
      }
      if (key === 'connections') step.connections = n;
      else step.targetRps = n;
    }
  }
  return step;
}

/** The unit that makes a histogram's max read as the line's Interval_Max (in ms). */
function unitFromMax(histogramMax: number, intervalMaxMs: number): HdrValueUnit | null {
  if (!(histogramMax > 0) || !(intervalMaxMs >= 0.01)) return null;
  const k = Math.round(Math.log10(histogramMax / intervalMaxMs) / 3);
  return k <= 0 ? 'ms' : k === 1 ? 'us' : 'ns';
}

export function decodeHdrLog(text: string, defaults: StepDefaults = {}): DecodedIntervalResults {
  return runWhole(hdrLogSteps(text, defaults));
}

/** decodeHdrLog in slices between which the event loop runs: a 20,000-line log takes seconds. */
export function decodeHdrLogSliced(
  text: string,
  defaults: StepDefaults = {},
): Promise<DecodedIntervalResults> {
  return runSliced(hdrLogSteps(text, defaults));
}

/**
 * The lines of `text` (ended by CRLF, CR or LF) one at a time, as `text.split` would give
 * them: a 7.5 MB log split at once held the event loop ~170 ms (a 20,000-interval log).
 */
export function* linesOf(text: string): Generator<string> {
  const eol = /\r\n|\r|\n/g;
  let from = 0;
  for (let m = eol.exec(text); m !== null; m = eol.exec(text)) {
    yield text.slice(from, m.index);
    from = eol.lastIndex;
  }
  yield text.slice(from);
}

/** The decoding, one step a line. */
function* hdrLogSteps(
  text: string,
  defaults: StepDefaults,
): Generator<void, DecodedIntervalResults> {
  let startTimeSec: number | null = null;
  let baseTimeSec: number | null = null;
  let unit: HdrValueUnit | null = defaults.unit ?? null;
  const steps = new Map<string, DecodedIntervalResult>();
  const lastStart = new Map<string, number>();
  let line = 0;
  for (const raw of linesOf(text)) {
    yield;
    line++;
    const text = raw.trim();
    if (text === '') continue;
    if (text.startsWith('#[StartTime:')) {
      startTimeSec = Number.parseFloat(
        text.slice('#[StartTime:'.length).trim().split(/[\s,]/)[0] ?? '',
      );
      if (!Number.isFinite(startTimeSec)) {
        throw new ResultFileError('invalid_value', `line ${line}: StartTime is not a number`, {
          line,
          field: 'StartTime',
        });
      }
      continue;
    }
    if (text.startsWith('#[BaseTime:')) {
      baseTimeSec = Number.parseFloat(
        text.slice('#[BaseTime:'.length).trim().split(/[\s,]/)[0] ?? '',
      );
      if (!Number.isFinite(baseTimeSec)) {
        throw new ResultFileError('invalid_value', `line ${line}: BaseTime is not a number`, {
          line,
          field: 'BaseTime',
        });
      }
      continue;
    }
    if (text.startsWith('#') || text.startsWith('"StartTimestamp"')) continue;

    const tokens = text.split(',');
    let tag: string | null = null;
    if (tokens[0]?.startsWith('Tag=')) tag = (tokens.shift() as string).slice(4);
    if (tokens.length !== 4) {
      throw new ResultFileError(
        'truncated',
        `line ${line}: an interval line has 4 fields (${FIELDS.join(', ')}) after an optional Tag=, this one has ${tokens.length}`,
        { line, field: FIELDS[Math.min(tokens.length, 3)] as string },
      );
    }
    const [startText, lengthText, maxText, base64] = tokens as [string, string, string, string];
    const numbers = [startText, lengthText, maxText].map((t, i) => {
      const n = Number(t);
      if (!NUMBER.test(t.trim()) || !Number.isFinite(n) || n < 0) {
        throw new ResultFileError(
          'invalid_value',
          `line ${line}: ${FIELDS[i]} "${t}" is not a non-negative number`,
          {
            line,
            field: FIELDS[i] as string,
          },
        );
      }
      return n;
    }) as [number, number, number];
    const [startSec, lengthSec, intervalMaxMs] = numbers;
    if (lengthSec <= 0 || lengthSec * 1000 > MAX_DURATION_MS) {
      throw new ResultFileError(
        'invalid_value',
        `line ${line}: Interval_Length must be more than 0 and at most ${MAX_DURATION_MS / 1000} s`,
        {
          line,
          field: 'Interval_Length',
        },
      );
    }
    const b64 = base64.trim();
    if (b64.length % 4 !== 0 || !BASE64.test(b64)) {
      throw new ResultFileError(
        'invalid_histogram',
        `line ${line}: Interval_Compressed_Histogram is not base64`,
        {
          line,
          field: 'Interval_Compressed_Histogram',
        },
      );
    }
    const bytes = new Uint8Array(Buffer.from(b64, 'base64'));
    let counts: ReturnType<typeof decodeHdr>;
    try {
      counts = decodeHdr(bytes);
    } catch (error) {
      if (!(error instanceof HdrDecodeError)) throw error;
      throw new ResultFileError(
        'invalid_histogram',
        `line ${line}: Interval_Compressed_Histogram: ${error.message}`,
        {
          line,
          field: 'Interval_Compressed_Histogram',
        },
      );
    }
    const stats = hdrStats(counts);
    unit ??= unitFromMax(stats.max ?? 0, intervalMaxMs);

    // HistogramLogReader: without a BaseTime, timestamps more than a year before StartTime are
    // relative to it; otherwise absolute.
    if (baseTimeSec === null) {
      baseTimeSec = startTimeSec !== null && startSec < startTimeSec - YEAR_S ? startTimeSec : 0;
    }
    const absoluteSec = baseTimeSec + startSec;
    if (absoluteSec < YEAR_S) {
      throw new ResultFileError(
        'invalid_value',
        `line ${line}: StartTimestamp ${startText} is relative and the log has no #[StartTime: ...] or #[BaseTime: ...] line before it to place it`,
        { line, field: 'StartTimestamp' },
      );
    }
    const step = stepOf(tag, defaults, line);
    const key = JSON.stringify([step.mode, step.connections, step.targetRps, step.generator]);
    const startMs = absoluteSec * 1000;
    // The interval, start to end, among the instants the API takes.
    if (timestampRangeProblem(Math.round((startMs + lengthSec * 1000) * 1000))) {
      throw new ResultFileError(
        'invalid_value',
        `line ${line}: StartTimestamp ${startText} places the interval outside ${TIMESTAMP_RANGE}`,
        { line, field: 'StartTimestamp' },
      );
    }
    const previous = lastStart.get(key);
    if (previous !== undefined && startMs <= previous) {
      throw new ResultFileError(
        'invalid_value',
        `line ${line}: StartTimestamp ${startText} does not follow the step's previous interval (starts must increase)`,
        { line, field: 'StartTimestamp' },
      );
    }
    lastStart.set(key, startMs);
    let result = steps.get(key);
    if (!result) {
      result = {
        ...step,
        hdrUnit: 'us',
        generatorCpu: defaults.generatorCpu ?? null,
        labels: tag ? { tag } : {},
        intervals: [],
      };
      steps.set(key, result);
    }
    const interval: DecodedInterval = {
      startMs,
      durationMs: lengthSec * 1000,
      count: counts.total,
      errors: null,
      minMs: stats.min,
      maxMs: stats.max,
      hdr: bytes,
    };
    result.intervals.push(interval);
  }
  if (steps.size === 0) {
    throw new ResultFileError('no_results', 'the log holds no interval line');
  }
  // The unit is known only once some line had a max: min/max are scaled then.
  const hdrUnit: HdrValueUnit = unit ?? 'us';
  const perMs = UNIT_PER_MS[hdrUnit];
  const results = [...steps.values()];
  for (const r of results) {
    r.hdrUnit = hdrUnit;
    for (const i of r.intervals) {
      if (i.minMs !== null) i.minMs /= perMs;
      if (i.maxMs !== null) i.maxMs /= perMs;
    }
  }
  return { format: 'hdr-log', results, unmapped: [] };
}
