// Result files to load results: picks (or checks) the format, runs its decoder, and
// rejects with a ResultFileError anything that would store a wrong or empty result.
// Bounded whatever the body: the kind is told from a 64 KiB prefix, JSON is parsed once
// (JSON.parse, linear), YAML only when the file looks like a YAML result and then off the
// event loop within a size, time and memory budget (yaml-bounded.ts), and text reports line
// by line with linear-time patterns.
import {
  FORMAT_HINT,
  type LoadResult,
  loadResult,
  type PercentileMethod,
  type ResultFormat,
} from '@meshbench/schema';
import { detectFormat, formatOfDocument, SNIFF_CHARS, sniff } from './detect.ts';
import { decodeFortio } from './fortio.decoder.ts';
import { decodeGatlingLog } from './gatling.decoder.ts';
import { decodeGhz } from './ghz.decoder.ts';
import { decodeHdrLogSliced, type StepDefaults } from './hdr-log.decoder.ts';
import { decodeHeyCsv } from './hey-csv.decoder.ts';
import type { DecodedIntervalResults } from './interval-results.ts';
import { decodeIstioCsv } from './istio-csv.decoder.ts';
import { decodeJmeterCsv } from './jmeter-csv.decoder.ts';
import { decodeK6 } from './k6.decoder.ts';
import {
  decodeK6Ndjson,
  decodeK6NdjsonResults,
  type K6NdjsonDecoded,
} from './k6-ndjson.decoder.ts';
import {
  decodeLocustCsv,
  decodeLocustJson,
  LOCUST_FILES,
  looksLikeLocustHtml,
  withLocustStep,
} from './locust.decoder.ts';
import { decodeNighthawk } from './nighthawk.decoder.ts';
import { decodeOha } from './oha.decoder.ts';
import { ResultFileError } from './result-file-error.ts';
import { decodeSmp } from './smp.decoder.ts';
import {
  hasMeasurement,
  MAX_PERCENTILES_PER_RESULT,
  MAX_RESULTS_PER_FILE,
  parseJson,
} from './values.ts';
import { decodeVegetaJson } from './vegeta.decoder.ts';
import { decodeWrk } from './wrk.decoder.ts';
import { decodeWrk2 } from './wrk2.decoder.ts';
import { parseYaml } from './yaml-bounded.ts';

export { SNIFF_CHARS } from './detect.ts';
export { gatlingBinaryHint } from './gatling-binary.ts';
export type { StepDefaults } from './hdr-log.decoder.ts';
export {
  type DecodedInterval,
  type DecodedIntervalResult,
  type DecodedIntervalResults,
  type IntervalResultRow,
  intervalResultRow,
  intervalResultRowSteps,
} from './interval-results.ts';
export { decodeK6NdjsonChunks } from './k6-ndjson.stream.ts';
export { LOCUST_STEP_KEYS } from './locust.decoder.ts';
export { ResultFileError, type ResultFileProblem } from './result-file-error.ts';
export {
  decodeSampleChunks,
  isSampleFormat,
  type SampleFormat,
} from './sample-formats.ts';
export { isVegetaGob } from './vegeta-gob.decoder.ts';
export { detectFormat, sniff };

export interface DecodedResults {
  format: ResultFormat;
  results: LoadResult[];
  /** Source fields that have no place in a load result, once each. */
  unmapped: string[];
}

type Decoded = { results: LoadResult[]; unmapped: string[] };

/** Formats that are documents (JSON, or YAML where the tool writes YAML): decoded parsed. */
const DOCUMENT_DECODERS = {
  fortio: decodeFortio,
  nighthawk: decodeNighthawk,
  k6: decodeK6,
  smp: decodeSmp,
  ghz: decodeGhz,
  oha: decodeOha,
} satisfies Partial<Record<ResultFormat, (doc: unknown) => Decoded>>;

/** Formats that are text reports: decoded line by line. */
const TEXT_DECODERS = {
  wrk2: decodeWrk2,
  'istio-csv': decodeIstioCsv,
  'k6-ndjson': decodeK6NdjsonResults,
  hey: decodeHeyCsv,
  jmeter: decodeJmeterCsv,
  wrk: decodeWrk,
  vegeta: decodeVegetaJson,
  gatling: decodeGatlingLog,
} satisfies Partial<Record<ResultFormat, (text: string) => Decoded>>;

/** The document formats that tools also write as YAML. */
const YAML_FORMATS = new Set<ResultFormat>(['smp', 'nighthawk']);

/**
 * How each tool's own percentiles were obtained, for those its decoder does not mark: Fortio
 * interpolates inside its buckets (fortio stats/stats.go CalcPercentile), Istio's CSV and SMP
 * carry Fortio's, Nighthawk's statistics may be HdrHistogram or circllhist, wrk2 prints
 * HdrHistogram values (src/wrk.c hdr_init(1, MAX_LATENCY, 3, ...), then rounded for print).
 */
const PERCENTILE_METHOD: Record<ResultFormat, PercentileMethod> = {
  fortio: 'reported',
  nighthawk: 'reported',
  k6: 'reported',
  'k6-ndjson': 'hdr',
  wrk2: 'hdr',
  smp: 'reported',
  'istio-csv': 'reported',
  'hdr-log': 'hdr',
  // Raw samples: the decoder marks each percentile (raw-samples.ts).
  hey: 'raw',
  jmeter: 'raw',
  // Locust's decoder marks each percentile with its bucket bound (locust-buckets.ts).
  locust: 'tool-histogram',
  // wrk 4's own rank rule over whole us, printed to 2 decimals (wrk.decoder.ts).
  wrk: 'reported',
  vegeta: 'raw',
  gatling: 'raw',
  // With details the decoder marks them raw; without, ghz's own.
  ghz: 'reported',
  // oha's own: index floor(p / 100 * n) of its sorted durations (oha.decoder.ts).
  oha: 'reported',
};

const NAMES: Record<ResultFormat, string> = {
  fortio: 'Fortio JSON',
  nighthawk: 'Nighthawk output',
  k6: 'a k6 summary',
  'k6-ndjson': 'a k6 --out json stream',
  wrk2: 'a wrk2 report',
  smp: 'an SMP result',
  'istio-csv': 'an Istio perf CSV',
  'hdr-log': 'an HdrHistogram interval log',
  hey: 'a hey -o csv file',
  jmeter: 'a JMeter JTL CSV',
  locust:
    "Locust's --csv files (_stats.csv, _stats_history.csv, _failures.csv, _exceptions.csv; before 0.14 _requests.csv, _distribution.csv) or its --json output",
  wrk: 'a wrk 4 report',
  vegeta: "Vegeta's results: vegeta attack's binary (gob) output, or JSON (vegeta encode -to json)",
  gatling: "Gatling's simulation.log (text up to 3.12, binary from 3.13)",
  ghz: 'a ghz JSON report',
  oha: "oha's JSON summary (--output-format json)",
};

/** Every format read, as `format` value and what it is: "fortio (Fortio JSON), ...". */
export function acceptedFormats(): string {
  return (Object.entries(NAMES) as [ResultFormat, string][])
    .map(([format, name]) => `${format} (${name})`)
    .join(', ');
}

/** Formats of interval histograms: decoded per step and generator, stored with their intervals. */
export const INTERVAL_FORMATS = new Set<ResultFormat>(['hdr-log', 'k6-ndjson']);

/**
 * Any result file: interval formats (told by content, or named) to decoded interval results,
 * the others to load results as decodeResults gives them.
 */
export async function decodeResultFile(
  text: string,
  format: ResultFormat | 'auto',
  step: StepDefaults,
): Promise<
  (DecodedResults & { intervals: false }) | (DecodedIntervalResults & { intervals: true })
> {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const kind = /\S/.test(body) ? sniff(body) : null;
  if (format === 'hdr-log' || (format === 'auto' && kind === 'hdr-log')) {
    if (kind !== null && kind !== 'hdr-log') {
      throw new ResultFileError(
        'format_mismatch',
        `the file is not ${NAMES['hdr-log']} as format=hdr-log says (no "#[StartTime:", "Tag=" or interval line in its first 64 KiB)`,
      );
    }
    if (!/\S/.test(body)) throw new ResultFileError('empty', 'the file is empty');
    return { ...(await decodeHdrLogSliced(body, step)), intervals: true };
  }
  if (format === 'k6-ndjson' || (format === 'auto' && kind === 'k6-ndjson')) {
    if (!/\S/.test(body)) throw new ResultFileError('empty', 'the file is empty');
    return { ...k6IntervalResults(decodeK6Ndjson(body), step), intervals: true };
  }
  const decoded = await decodeResults(text, format);
  if (decoded.format === 'locust')
    decoded.results = decoded.results.map((r) => withLocustStep(r, step));
  return { ...decoded, intervals: false };
}

/**
 * k6's --out json stream as interval results: each scenario a step, its samples aggregated
 * into 1 s HdrHistograms (microseconds, 3 significant digits) by K6NdjsonAggregator. What the
 * stream says of a step (mode, connections, errors by status) is kept; the query may name
 * the generator and its CPU, and what the stream does not say of the step.
 */
export function k6IntervalResults(
  decoded: K6NdjsonDecoded,
  step: StepDefaults,
): DecodedIntervalResults {
  return {
    format: 'k6-ndjson',
    unmapped: decoded.unmapped,
    ...(decoded.truncated ? { truncated: decoded.truncated } : {}),
    results: decoded.steps.map((s) => ({
      mode: step.mode ?? s.result.mode,
      connections: s.result.connections ?? step.connections ?? null,
      targetRps: s.result.targetRps ?? step.targetRps ?? null,
      generator: step.generator ?? null,
      hdrUnit: step.unit ?? 'us',
      generatorCpu: step.generatorCpu ?? null,
      labels: { ...s.result.labels, ...(s.scenario ? { scenario: s.scenario } : {}) },
      intervals: s.intervals,
      known: {
        errors: s.result.errors,
        errorsByCode: s.result.errorsByCode,
        minMs: s.result.minMs,
        meanMs: s.result.meanMs,
        maxMs: s.result.maxMs,
        stdDevMs: s.result.stdDevMs,
        // From the first request's start to the last one's end, as measured.
        ...(s.result.durationMs !== null ? { durationMs: s.result.durationMs } : {}),
        startedAtUs: s.startedAtUs,
      },
      // k6 reports durations in ms with decimals; they are recorded as whole microseconds.
      roundingMs: 0.0005,
    })),
  };
}

export async function decodeResults(
  text: string,
  format: ResultFormat | 'auto' = 'auto',
): Promise<DecodedResults> {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!/\S/.test(body)) throw new ResultFileError('empty', 'the file is empty');
  const kind = sniff(body);

  // Parse a document once: JSON whenever it opens like JSON (a broken one is reported as
  // broken JSON), YAML when it looks like a YAML result or the format named is written as
  // YAML, JSON again (for its error) when a JSON-only format is named.
  let doc: unknown;
  if (kind === 'json' && format !== 'k6-ndjson' && format !== 'vegeta') doc = parseJson(body);
  else if (kind === 'yaml' || (kind === null && format !== 'auto' && YAML_FORMATS.has(format))) {
    doc = await parseYaml(body);
  } else if (kind === null && (format === 'fortio' || format === 'k6')) doc = parseJson(body);
  const detected =
    doc === undefined ? (kind === 'locust-csv' ? 'locust' : kind) : formatOfDocument(doc);

  let chosen: ResultFormat;
  if (format === 'auto') {
    if (detected === 'hdr-log') {
      throw new ResultFileError(
        'format_mismatch',
        'an HdrHistogram interval log is decoded by decodeResultFile',
      );
    }
    if (detected === null || detected === 'json' || detected === 'yaml') {
      if (looksLikeLocustHtml(body.slice(0, SNIFF_CHARS))) {
        throw new ResultFileError(
          'undetectable',
          `a Locust HTML report holds only the percentiles Locust computed, not its response-time buckets; post its ${LOCUST_FILES} instead (format=locust)`,
        );
      }
      throw new ResultFileError(
        'undetectable',
        `cannot tell the format of the file; the formats read are ${acceptedFormats()}; ${FORMAT_HINT}`,
      );
    }
    chosen = detected;
  } else {
    if (detected !== null && detected !== 'json' && detected !== 'yaml' && detected !== format) {
      throw new ResultFileError(
        'format_mismatch',
        `the file is ${NAMES[detected]}, not ${NAMES[format]} as format=${format} says`,
      );
    }
    chosen = format;
  }

  if (chosen === 'hdr-log') {
    throw new ResultFileError(
      'format_mismatch',
      'an HdrHistogram interval log is decoded by decodeResultFile',
    );
  }
  const decoded =
    chosen === 'locust'
      ? doc === undefined
        ? decodeLocustCsv(body)
        : decodeLocustJson(doc)
      : chosen in DOCUMENT_DECODERS
        ? DOCUMENT_DECODERS[chosen as keyof typeof DOCUMENT_DECODERS](doc)
        : TEXT_DECODERS[chosen as keyof typeof TEXT_DECODERS](body);
  return checkedResults(chosen, decoded);
}

/**
 * A decoder's results as stored: within the limits, each percentile marked, every point valid
 * (else a ResultFileError naming it), those with nothing measured left out.
 */
export function checkedResults(chosen: ResultFormat, decoded: Decoded): DecodedResults {
  if (decoded.results.length > MAX_RESULTS_PER_FILE) {
    throw new ResultFileError(
      'too_large',
      `the file holds ${decoded.results.length} load results, more than the ${MAX_RESULTS_PER_FILE} one file may hold`,
    );
  }
  decoded.results.forEach((r, i) => {
    if (r.percentiles.length > MAX_PERCENTILES_PER_RESULT) {
      throw new ResultFileError(
        'too_large',
        `result ${i + 1} states ${r.percentiles.length} percentiles, more than the ${MAX_PERCENTILES_PER_RESULT} a result may hold`,
      );
    }
    r.percentiles = r.percentiles.map((x) =>
      x.method ? x : { ...x, exact: false, method: PERCENTILE_METHOD[chosen] },
    );
    const checked = loadResult.safeParse(r);
    const issue = checked.success ? undefined : checked.error.issues[0];
    if (issue) {
      const field = issue.path.join('.');
      throw new ResultFileError('invalid_value', `result ${i + 1}: ${field} ${issue.message}`, {
        field,
      });
    }
  });
  for (const r of decoded.results) {
    if (r.requests === 0) {
      // Nothing was sent: a tool's zeros (Fortio's Min, Max, Avg of an empty histogram,
      // stats/stats.go Counter) are no latencies.
      r.minMs = null;
      r.meanMs = null;
      r.maxMs = null;
      r.stdDevMs = null;
      r.percentiles = [];
      if (r.histogram?.every((b) => b.count === 0)) r.histogram = null;
    }
  }
  const results = decoded.results.filter(hasMeasurement);
  if (results.length === 0) {
    const seen =
      decoded.unmapped.length > 0
        ? `; fields found but not usable: ${decoded.unmapped.join(', ')}`
        : '';
    throw new ResultFileError(
      'no_results',
      `the file holds no load result: no request count, rate, duration or latency to import${seen}`,
    );
  }
  return { format: chosen, results, unmapped: decoded.unmapped };
}
