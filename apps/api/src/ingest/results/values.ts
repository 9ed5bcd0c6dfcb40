// Shared pieces of the result decoders: strict numbers, exact unit shifts, JSON parsing
// that says where a file is broken, and the empty load result they fill in. (YAML is
// parsed off the event loop: yaml-bounded.ts.)
import { calendarProblem, type LoadResult, RFC3339, UNSPECIFIED_MODE } from '@meshbench/schema';
import { findBadValue } from '../stored-text.ts';
import { parseTimestampUs } from '../timestamps.ts';
import { ResultFileError } from './result-file-error.ts';

export type Json = Record<string, unknown>;

/** Load results one file may hold (Istio's perf dashboard CSV has about a hundred rows). */
export const MAX_RESULTS_PER_FILE = 10_000;

/** Percentiles one result may state (Nighthawk's largest real output has 73; wrk2's -L ~100). */
export const MAX_PERCENTILES_PER_RESULT = 1000;

export function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when a field carries something worth reporting as unmapped. */
export function hasValue(v: unknown): boolean {
  if (v === null || v === undefined || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isRecord(v)) return Object.keys(v).length > 0;
  return true;
}

export function emptyResult(): LoadResult {
  return {
    mode: UNSPECIFIED_MODE,
    connections: null,
    targetRps: null,
    achievedRps: null,
    durationMs: null,
    requests: null,
    errors: null,
    errorsByCode: {},
    percentiles: [],
    histogram: null,
    minMs: null,
    meanMs: null,
    maxMs: null,
    stdDevMs: null,
    clientCpuCores: null,
    serverCpuCores: null,
    clientMemMiB: null,
    serverMemMiB: null,
    clientCpuCoresMax: null,
    serverCpuCoresMax: null,
    clientMemMiBMax: null,
    serverMemMiBMax: null,
    labels: {},
    thresholds: null,
    startedAt: null,
  };
}

/** Whether a decoded point carries anything measured (settings alone are not a result). */
export function hasMeasurement(r: LoadResult): boolean {
  return (
    r.requests !== null ||
    r.errors !== null ||
    r.achievedRps !== null ||
    r.durationMs !== null ||
    r.percentiles.length > 0 ||
    (r.histogram?.length ?? 0) > 0 ||
    r.meanMs !== null ||
    r.clientCpuCores !== null ||
    r.serverCpuCores !== null ||
    r.clientMemMiB !== null ||
    r.serverMemMiB !== null ||
    r.serverCpuCoresMax !== null ||
    r.serverMemMiBMax !== null
  );
}

// --- numbers -------------------------------------------------------------------------

// One way only to split a run of digits (`\d+(?:\.\d*)?`, not `\d+\.?\d*`): the ambiguous
// form backtracks quadratically on a long token (8000 digits: 50 ms; 1 MB: minutes).
const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
const NON_FINITE = /^[-+]?(?:nan|inf|infinity)$/i;

interface Where {
  field: string;
  line?: number;
}

function at(where: Where): string {
  return where.line === undefined ? where.field : `${where.field} (line ${where.line})`;
}

/** A finite number from a JSON number or a numeric string; null when absent or blank. */
export function toNumber(value: unknown, where: Where): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new ResultFileError(
        'non_finite',
        `${at(where)} is ${value}, not a finite number`,
        where,
      );
    }
    return value;
  }
  if (typeof value === 'string') {
    const s = value.trim();
    if (s === '') return null;
    if (NON_FINITE.test(s)) {
      throw new ResultFileError('non_finite', `${at(where)} is "${s}", not a finite number`, where);
    }
    if (DECIMAL.test(s)) return Number(s);
  }
  throw new ResultFileError(
    'invalid_value',
    `${at(where)} must be a number, got ${JSON.stringify(value)}`,
    where,
  );
}

/** A non-negative whole number (counts); int64 fields may arrive as strings. */
export function toCount(value: unknown, where: Where): number | null {
  const n = toNumber(value, where);
  if (n === null) return null;
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new ResultFileError(
      'invalid_value',
      `${at(where)} must be a whole number of at least 0, got ${JSON.stringify(value)}`,
      where,
    );
  }
  return n;
}

/** A number that must not be negative (rates, durations, resources). */
export function toNonNegative(value: unknown, where: Where): number | null {
  const n = toNumber(value, where);
  if (n !== null && n < 0) {
    throw new ResultFileError(
      'invalid_value',
      `${at(where)} must not be negative, got ${n}`,
      where,
    );
  }
  return n;
}

/**
 * n × 10^exp done on the decimal digits, so 0.065077247 s becomes exactly 65.077247 ms
 * rather than 65.07724700000001: unit changes must not invent digits.
 */
export function shift(n: number, exp: number): number {
  if (n === 0 || exp === 0) return n;
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(n));
  if (!m) return n * 10 ** exp;
  const [, sign, whole, frac = '', e = '0'] = m;
  return Number(`${sign}${whole}${frac}e${Number(e) - frac.length + exp}`);
}

export const secondsToMs = (s: number) => shift(s, 3);
export const usToMs = (us: number) => shift(us, -3);
export const nsToMs = (ns: number) => shift(ns, -6);

/** A protobuf JSON Duration ("0.000180007s") in milliseconds. */
export function protoDurationMs(value: unknown, where: Where): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') {
    const m = /^\s*(\S+?)s\s*$/.exec(value);
    const seconds = toNonNegative(m ? m[1] : value, where);
    return seconds === null ? null : secondsToMs(seconds);
  }
  throw new ResultFileError(
    'invalid_value',
    `${at(where)} must be a duration like "0.002s", got ${JSON.stringify(value)}`,
    where,
  );
}

const GO_UNITS: Record<string, number> = {
  h: 3600,
  m: 60,
  s: 1,
  ms: 1e-3,
  us: 1e-6,
  µs: 1e-6,
  ns: 1e-9,
};

/** A Go duration string ("30s", "1m0s") in seconds; null when it is not one. */
export function goDurationSeconds(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const s = value.trim();
  if (!/^(?:[\d.]+(?:h|ms|m|s|us|µs|ns))+$/.test(s)) return null;
  let total = 0;
  for (const m of s.matchAll(/([\d.]+)(h|ms|m|s|us|µs|ns)/g)) {
    total += Number(m[1]) * (GO_UNITS[m[2] as string] as number);
  }
  return Number.isFinite(total) ? total : null;
}

/** The string itself when it is an RFC 3339 date-time, else null. */
export function rfc3339(value: unknown, field?: string): string | null {
  if (typeof value !== 'string') return null;
  if (parseTimestampUs(value) !== null) return value;
  // The RFC 3339 shape naming no instant (year 0000, February 30): refused, not dropped,
  // as a time in another shape is (named in `unmapped`).
  const problem = RFC3339.test(value) ? calendarProblem(value) : undefined;
  if (problem && field) {
    throw new ResultFileError('invalid_value', `${field} ${JSON.stringify(value)} ${problem}`, {
      field,
    });
  }
  return null;
}

/** end - start in milliseconds, exact to the nanosecond; null unless both are RFC 3339. */
export function spanMs(start: string, end: string): number | null {
  const a = epochNs(start);
  const b = epochNs(end);
  if (a === null || b === null || b < a) return null;
  return shift(Number(b - a), -6);
}

function epochNs(value: string): bigint | null {
  const us = parseTimestampUs(value);
  if (us === null) return null;
  const frac = /\.(\d+)/.exec(value.replace(/[Zz]|[+-]\d{2}:\d{2}$/, ''))?.[1] ?? '';
  const belowUs = Number(frac.slice(6, 9).padEnd(3, '0'));
  return BigInt(us) * 1000n + BigInt(belowUs);
}

// --- modes and labels ----------------------------------------------------------------

const MODE_SUFFIX = /(?:^|[_-])(baseline|base|serveronly|clientonly|both)$/;

/**
 * The sidecar mode a label ends with, as Istio's runner writes it
 * (`<sha>_qps_1000_c_64_1024_v2-nullvm_both`); "base" is its older name for baseline.
 */
export function modeFromLabel(label: string): string | null {
  const last = label.trim().split(/\s+/).pop() ?? '';
  const m = MODE_SUFFIX.exec(last);
  if (!m) return null;
  return m[1] === 'base' ? 'baseline' : (m[1] as string);
}

/** Sorts by p and drops exact repeats, keeping the first value stated for a p. */
export function orderPercentiles(ps: Array<{ p: number; ms: number }>) {
  const seen = new Set<number>();
  const kept = ps.filter(({ p }) => {
    if (seen.has(p)) return false;
    seen.add(p);
    return true;
  });
  return kept.sort((a, b) => a.p - b.p);
}

// --- parsing -------------------------------------------------------------------------

export function looksLikeJson(text: string): boolean {
  const t = text.replace(/^\uFEFF/, '').trimStart();
  return t.startsWith('{') || t.startsWith('[');
}

/** JSON.parse, or a ResultFileError naming the line and field where the JSON breaks. */
export function parseJson(text: string): unknown {
  const body = text.replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    throw diagnoseJson(body, err instanceof Error ? err.message : String(err));
  }
  // Text no column can hold (NUL, lone surrogates) and prototype keys are refused by path;
  // numbers are the decoders' to judge (non_finite names the field they read).
  const bad = findBadValue(value, '', { numbers: false });
  if (bad) {
    throw new ResultFileError('invalid_value', `"${bad.path}" ${bad.reason}`, { field: bad.path });
  }
  return value;
}

type Frame = { kind: 'object'; key: string | null } | { kind: 'array'; index: number };

function pathOf(frames: Frame[]): string {
  let out = '';
  for (const f of frames) {
    if (f.kind === 'array') out += `[${f.index}]`;
    else if (f.key !== null) out += out === '' ? f.key : `.${f.key}`;
  }
  return out;
}

// JSON.parse says little about where or why; walk the text once to say it plainly.
function diagnoseJson(text: string, cause: string): ResultFileError {
  const frames: Frame[] = [];
  let line = 1;
  let lastString: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      line++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\') j++;
        else if (text[j] === '\n') line++;
        j++;
      }
      if (j >= text.length) return truncated(line, frames);
      lastString = text.slice(i + 1, j);
      i = j;
    } else if (c === ':') {
      const top = frames[frames.length - 1];
      if (top?.kind === 'object') top.key = lastString;
    } else if (c === ',') {
      const top = frames[frames.length - 1];
      if (top?.kind === 'array') top.index++;
      else if (top?.kind === 'object') top.key = null;
    } else if (c === '{') {
      frames.push({ kind: 'object', key: null });
    } else if (c === '[') {
      frames.push({ kind: 'array', index: 0 });
    } else if (c === '}' || c === ']') {
      frames.pop();
    } else if (text.startsWith('NaN', i) || text.startsWith('Infinity', i)) {
      const token = text.startsWith('NaN', i) ? 'NaN' : 'Infinity';
      const field = pathOf(frames);
      return new ResultFileError(
        'non_finite',
        `${field || 'a value'} (line ${line}) is ${text[i - 1] === '-' ? '-' : ''}${token}, not a finite number (JSON has no NaN or Infinity)`,
        { line, ...(field ? { field } : {}) },
      );
    }
  }
  if (frames.length > 0) return truncated(line, frames);
  const pos = /position (\d+)/.exec(cause);
  if (pos) {
    const before = text.slice(0, Number(pos[1]));
    const errLine = before.split('\n').length;
    const column = Number(pos[1]) - before.lastIndexOf('\n');
    return new ResultFileError(
      'invalid_json',
      `invalid JSON at line ${errLine}, column ${column}: ${cause.replace(/ in JSON at position \d+.*$/, '')}`,
      { line: errLine },
    );
  }
  return new ResultFileError('invalid_json', `invalid JSON: ${cause}`);
}

function truncated(line: number, frames: Frame[]): ResultFileError {
  const field = pathOf(frames);
  return new ResultFileError(
    'truncated',
    `the JSON ends early at line ${line}${field ? `, inside ${field}` : ''}: the file is truncated`,
    { line, ...(field ? { field } : {}) },
  );
}

/** Collects the source fields a decoder could not place, once each, in the order met. */
export class Unmapped {
  /** Names kept; a file with more (a text report of junk lines) says how many were left out. */
  static readonly MAX = 100;
  private readonly seen = new Set<string>();
  private more = 0;
  add(name: string): void {
    if (this.seen.has(name)) return;
    if (this.seen.size < Unmapped.MAX) this.seen.add(name);
    else this.more++;
  }
  /** Adds `prefix + key` for every key of `obj` not in `used` that carries a value. */
  rest(obj: Json, used: readonly string[], prefix = ''): void {
    for (const [k, v] of Object.entries(obj)) {
      if (!used.includes(k) && hasValue(v)) this.add(`${prefix}${k}`);
    }
  }
  list(): string[] {
    const names = [...this.seen];
    if (this.more > 0) names.push(`… and ${this.more} more`);
    return names;
  }
}
