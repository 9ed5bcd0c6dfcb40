// wrk2's (and wrk's) text report to one load result. The "Detailed Percentile spectrum"
// (values in milliseconds) is preferred to the rounded "Latency Distribution" lines.
// Follows giltene/wrk2 src/wrk.c at f3a405e86295f591a95dddd9605709b3fd9207a4: the lines
// main() prints ("Running <d> test @ <url>", "<t> threads and <c> connections", "Thread
// calibration", print_stats "Latency"/"Req/Sec", print_hdr_latency for -L/-U, "<n> requests
// in <d>, <b>B read", "Socket errors: connect, read, write, timeout", "Non-2xx or 3xx
// responses" (status > 399), "Requests/sec:", "Transfer/sec:"); latencies come from an
// HdrHistogram of 3 significant digits (hdr_init(1, MAX_LATENCY, 3, ...)). wg/wrk's report
// has the same lines without the spectrum. Checked on the README samples (fixtures/).
import type { LoadResult } from '@meshbench/schema';
import { ResultFileError } from './result-file-error.ts';
import {
  emptyResult,
  orderPercentiles,
  shift,
  toCount,
  toNonNegative,
  toNumber,
  Unmapped,
} from './values.ts';

// `\d+(?:\.\d*)?` rather than `\d+\.?\d*`: one way to read a run of digits, so a long line
// costs linear time, not quadratic backtracking.
const NUM = String.raw`[-+]?(?:\d+(?:\.\d*)?|\.\d+|nan|inf)`;
const DURATION = new RegExp(`^(${NUM})(us|ms|s|m|h)$`, 'i');

/** A wrk duration ("6.60ms", "812.33us", "1.00m") in milliseconds. */
function wrkMs(token: string, where: { field: string; line: number }): number | null {
  const m = DURATION.exec(token);
  if (!m) {
    throw new ResultFileError(
      'invalid_value',
      `${where.field} (line ${where.line}) must be a duration like 6.60ms, got "${token}"`,
      where,
    );
  }
  const n = toNonNegative(m[1], where);
  if (n === null) return null;
  switch ((m[2] as string).toLowerCase()) {
    case 'us':
      return shift(n, -3);
    case 'ms':
      return n;
    case 's':
      return shift(n, 3);
    case 'm':
      return shift(n, 3) * 60;
    default:
      return shift(n, 3) * 3600;
  }
}

export function looksLikeWrk(text: string): boolean {
  return (
    /^\s*Requests\/sec:/m.test(text) ||
    (/^\s*Running \S+ test @ /m.test(text) && /\d+ threads and \d+ connections/.test(text))
  );
}

type Section = 'none' | 'distribution' | 'spectrum' | 'uncorrected';

interface State {
  r: LoadResult;
  unmapped: Unmapped;
  distribution: LoadResult['percentiles'];
  spectrum: LoadResult['percentiles'];
  threadLatency: { mean: number | null; stdDev: number | null; max: number | null } | null;
  section: Section;
  sawSummary: boolean;
  errors: number;
}

type Where = (field: string) => { field: string; line: number };
type Rule = [RegExp, (m: RegExpExecArray, s: State, where: Where) => void];

const ignore = () => {};

// One rule per kind of line wrk2 prints, tried in order; the first that matches wins.
const RULES: Rule[] = [
  [
    /^Running (\S+) test @ (\S+)/,
    (m, s) => {
      s.r.labels.requestedDuration = m[1] as string;
      s.r.labels.url = m[2] as string;
    },
  ],
  [
    /^(\d+) threads and (\d+) connections$/,
    (m, s, where) => {
      s.r.labels.threads = m[1] as string;
      s.r.connections = toCount(m[2], where('connections'));
    },
  ],
  [/^Thread calibration:/, (_m, s) => s.unmapped.add('Thread calibration')],
  [/^Thread Stats/, ignore],
  [
    /^Latency Distribution/,
    (m, s) => {
      s.section = /Uncorrected/i.test(m.input) ? 'uncorrected' : 'distribution';
      if (s.section === 'uncorrected') s.unmapped.add('Uncorrected Latency');
    },
  ],
  [
    /^Latency\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+$/,
    (m, s, where) => {
      s.threadLatency = {
        mean: wrkMs(m[1] as string, where('Latency Avg')),
        stdDev: wrkMs(m[2] as string, where('Latency Stdev')),
        max: wrkMs(m[3] as string, where('Latency Max')),
      };
    },
  ],
  [/^Req\/Sec/, (_m, s) => s.unmapped.add('Thread Stats Req/Sec')],
  [
    /^Detailed Percentile spectrum/,
    (_m, s) => {
      if (s.section !== 'uncorrected') s.section = 'spectrum';
    },
  ],
  [/^Value\s+Percentile/, ignore],
  [
    new RegExp(String.raw`^(${NUM})%\s+(\S+)$`, 'i'),
    (m, s, where) => {
      if (s.section !== 'distribution') return;
      const p = toNonNegative(m[1], where('Latency Distribution percentile'));
      const ms = wrkMs(m[2] as string, where(`Latency Distribution ${m[1]}%`));
      if (p !== null && ms !== null) s.distribution.push({ p, ms });
    },
  ],
  [
    new RegExp(String.raw`^(${NUM})\s+(${NUM})\s+(\d+)\s+\S+$`, 'i'),
    (m, s, where) => {
      if (s.section !== 'spectrum') return;
      const ms = toNonNegative(m[1], where('spectrum Value'));
      const q = toNumber(m[2], where('spectrum Percentile'));
      if (ms !== null && q !== null) s.spectrum.push({ p: shift(q, 2), ms });
    },
  ],
  [
    new RegExp(String.raw`^#\[Mean\s*=\s*(${NUM}),\s*StdDeviation\s*=\s*(${NUM})\]$`, 'i'),
    (m, s, where) => {
      // Only the corrected histogram's footer: an uncorrected one may follow.
      if (s.section !== 'spectrum') return;
      s.r.meanMs = toNonNegative(m[1], where('Mean'));
      s.r.stdDevMs = toNonNegative(m[2], where('StdDeviation'));
    },
  ],
  [
    new RegExp(String.raw`^#\[Max\s*=\s*(${NUM}),\s*Total count\s*=\s*(${NUM})\]$`, 'i'),
    (m, s, where) => {
      if (s.section === 'spectrum') s.r.maxMs = toNonNegative(m[1], where('Max'));
    },
  ],
  // HdrHistogram's own layout, not a measurement.
  [/^#\[Buckets/, ignore],
  [
    /^(\d+) requests in (\S+), (\S+) read$/,
    (m, s, where) => {
      s.sawSummary = true;
      s.section = 'none';
      s.r.requests = toCount(m[1], where('requests'));
      s.r.durationMs = wrkMs(m[2] as string, where('duration'));
      s.unmapped.add('bytes read');
    },
  ],
  [
    /^Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)$/,
    (m, s, where) => {
      (['connect', 'read', 'write', 'timeout'] as const).forEach((kind, k) => {
        const n = toCount(m[k + 1], where(`Socket errors ${kind}`)) ?? 0;
        if (n > 0) s.r.errorsByCode[`socket_${kind}`] = n;
        s.errors += n;
      });
    },
  ],
  [
    /^Non-2xx or 3xx responses: (\d+)$/,
    (m, s, where) => {
      const n = toCount(m[1], where('Non-2xx or 3xx responses')) ?? 0;
      if (n > 0) s.r.errorsByCode['non-2xx-3xx'] = n;
      s.errors += n;
    },
  ],
  [
    new RegExp(String.raw`^Requests/sec:\s*(${NUM})$`, 'i'),
    (m, s, where) => {
      s.r.achievedRps = toNonNegative(m[1], where('Requests/sec'));
    },
  ],
  [/^Transfer\/sec:/, (_m, s) => s.unmapped.add('Transfer/sec')],
  [/^-+$/, ignore],
];

export function decodeWrk2(text: string): { results: LoadResult[]; unmapped: string[] } {
  if (!looksLikeWrk(text)) {
    throw new ResultFileError(
      'format_mismatch',
      'not a wrk2 report: expected "Running <duration> test @ <url>" and "Requests/sec:" lines',
    );
  }
  const s: State = {
    r: emptyResult(),
    unmapped: new Unmapped(),
    distribution: [],
    spectrum: [],
    threadLatency: null,
    section: 'none',
    sawSummary: false,
    errors: 0,
  };
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const where: Where = (field) => ({ field, line: i + 1 });
    const rule = RULES.find(([re]) => re.test(line));
    const m = rule?.[0].exec(line);
    if (rule && m) rule[1](m, s, where);
    else s.unmapped.add(`line ${i + 1}: ${line.length > 60 ? `${line.slice(0, 60)}…` : line}`);
  }

  const { r } = s;
  // The spectrum carries three decimals; the distribution lines add the round percentiles
  // (99%, 99.9%...) that the spectrum's halving steps skip.
  r.percentiles = orderPercentiles([...s.spectrum, ...s.distribution]);
  if (s.threadLatency) {
    r.meanMs ??= s.threadLatency.mean;
    r.stdDevMs ??= s.threadLatency.stdDev;
    r.maxMs ??= s.threadLatency.max;
  }
  // wrk prints its error lines only when a count is non-zero.
  if (s.sawSummary) r.errors = s.errors;
  return { results: [r], unmapped: s.unmapped.list() };
}
