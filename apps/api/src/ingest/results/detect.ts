// Tells a result file's format from its content alone, so "auto" needs no file name.
// The raw text is judged by its first SNIFF_CHARS characters only, whatever its size:
// that says whether it is a text report (wrk2, Istio CSV) or a document to parse (JSON,
// YAML); a document's format is then told from its parsed content.
import type { ResultFormat } from '@meshbench/schema';
import { isGatlingRunLine } from './gatling.decoder.ts';
import { isGatlingBinaryLog } from './gatling-binary.ts';
import { isGhzReport } from './ghz.decoder.ts';
import { looksLikeHdrLog } from './hdr-log.decoder.ts';
import { isHeyCsvHeader } from './hey-csv.decoder.ts';
import { isIstioCsvHeader } from './istio-csv.decoder.ts';
import { isJmeterCsvHeader, isJmeterCsvSample } from './jmeter-csv.decoder.ts';
import { isK6Summary } from './k6.decoder.ts';
import { isK6NdjsonLine } from './k6-ndjson.decoder.ts';
import { isLocustJson, locustCsvKind } from './locust.decoder.ts';
import { isOhaReport } from './oha.decoder.ts';
import { isMesheryResults, isSmpResult } from './smp.decoder.ts';
import { isRecord, parseJson } from './values.ts';
import { isVegetaLine } from './vegeta.decoder.ts';
import { looksLikeWrk4 } from './wrk.decoder.ts';
import { looksLikeWrk } from './wrk2.decoder.ts';
import { parseYaml } from './yaml-bounded.ts';

/** How much of a file is looked at to tell its kind (64 KiB: wrk2's report is ~5 KB). */
export const SNIFF_CHARS = 64 * 1024;

/** What a body is by its opening: a document to parse, a text report, or none we read. */
export type BodyKind =
  | 'json'
  | 'yaml'
  | 'istio-csv'
  | 'wrk2'
  | 'k6-ndjson'
  | 'hdr-log'
  | 'hey'
  | 'jmeter'
  | 'locust-csv'
  | 'wrk'
  | 'vegeta'
  | 'gatling';

// The YAML formats we read name one of these keys at the top (Nighthawk's `results`,
// SMP's `latencies_ms` (top or under `client`), Meshery's `runner_results`); any other
// text is not parsed as YAML at all.
const RESULT_YAML_KEY = /^[ \t]{0,8}(?:-[ \t]+)?(?:results|latencies_ms|runner_results)[ \t]*:/m;

export function sniff(text: string): BodyKind | null {
  const head = text.slice(0, SNIFF_CHARS).replace(/^\uFEFF/, '');
  const firstLine = head.trimStart().split(/\r?\n/, 1)[0] ?? '';
  // k6's --out json stream: one {"type":"Metric"|"Point",...} object a line, so the file is
  // not one JSON document; told by its first line, when that line ends within the prefix.
  const lineEnds = firstLine.length < head.trimStart().length || text.length <= SNIFF_CHARS;
  if (lineEnds && isK6NdjsonLine(firstLine)) return 'k6-ndjson';
  // Vegeta's JSON results: one object a line, opening with its "attack" and "seq".
  if (isVegetaLine(firstLine)) return 'vegeta';
  // Gatling's simulation.log: its RUN record, or the binary one's opening (3.13 on).
  if (isGatlingRunLine(firstLine) || isGatlingBinaryLog(head)) return 'gatling';
  if (/^\s*[[{]/.test(head)) return 'json';
  if (looksLikeHdrLog(head)) return 'hdr-log';
  if (isIstioCsvHeader(firstLine)) return 'istio-csv';
  if (locustCsvKind(firstLine) !== null) return 'locust-csv';
  if (isHeyCsvHeader(firstLine)) return 'hey';
  if (isJmeterCsvHeader(firstLine) || isJmeterCsvSample(firstLine)) return 'jmeter';
  if (looksLikeWrk(head)) return looksLikeWrk4(head) ? 'wrk' : 'wrk2';
  if (RESULT_YAML_KEY.test(head)) return 'yaml';
  return null;
}

/** The format of a parsed JSON or YAML document, or null when it is none we read. */
export function formatOfDocument(doc: unknown): ResultFormat | null {
  // Meshery wraps Fortio results, so it is tested before Fortio's own shape.
  if (isMesheryResults(doc)) return 'smp';
  // Locust's --json is a list of stats entries.
  if (isLocustJson(doc)) return 'locust';
  if (!isRecord(doc)) return null;
  // Nighthawk's Fortio-compatible output is Fortio's format: it reads as Fortio.
  if (isRecord(doc.DurationHistogram)) return 'fortio';
  if (
    Array.isArray(doc.results) &&
    doc.results.length > 0 &&
    doc.results.every(
      (r) => isRecord(r) && (Array.isArray(r.statistics) || Array.isArray(r.counters)),
    )
  ) {
    return 'nighthawk';
  }
  if (isK6Summary(doc)) return 'k6';
  if (isGhzReport(doc)) return 'ghz';
  if (isOhaReport(doc)) return 'oha';
  if (isSmpResult(doc)) return 'smp';
  return null;
}

/** The format of a result file, or null when it is none we read (or does not parse). */
export async function detectFormat(text: string): Promise<ResultFormat | null> {
  const kind = sniff(text);
  if (kind === 'locust-csv') return 'locust';
  if (
    kind === 'istio-csv' ||
    kind === 'wrk2' ||
    kind === 'k6-ndjson' ||
    kind === 'hdr-log' ||
    kind === 'hey' ||
    kind === 'jmeter' ||
    kind === 'wrk' ||
    kind === 'vegeta' ||
    kind === 'gatling' ||
    kind === null
  ) {
    return kind;
  }
  try {
    return formatOfDocument(kind === 'json' ? parseJson(text) : await parseYaml(text));
  } catch {
    return null;
  }
}
