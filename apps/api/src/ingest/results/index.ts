// Result files to load results: picks (or checks) the format, runs its decoder, and
// rejects with a ResultFileError anything that would store a wrong or empty result.
import { type LoadResult, loadResult, type ResultFormat } from '@meshbench/schema';
import { detectFormat } from './detect.ts';
import { decodeFortio } from './fortio.decoder.ts';
import { decodeIstioCsv } from './istio-csv.decoder.ts';
import { decodeK6 } from './k6.decoder.ts';
import { decodeNighthawk } from './nighthawk.decoder.ts';
import { ResultFileError } from './result-file-error.ts';
import { decodeSmp } from './smp.decoder.ts';
import { hasMeasurement, looksLikeJson, parseJson } from './values.ts';
import { decodeWrk2 } from './wrk2.decoder.ts';

export { detectFormat } from './detect.ts';
export { ResultFileError, type ResultFileProblem } from './result-file-error.ts';

export interface DecodedResults {
  format: ResultFormat;
  results: LoadResult[];
  /** Source fields that have no place in a load result, once each. */
  unmapped: string[];
}

type Decoder = (text: string) => { results: LoadResult[]; unmapped: string[] };

const DECODERS: Record<ResultFormat, Decoder> = {
  fortio: decodeFortio,
  nighthawk: decodeNighthawk,
  k6: decodeK6,
  wrk2: decodeWrk2,
  smp: decodeSmp,
  'istio-csv': decodeIstioCsv,
};

const NAMES: Record<ResultFormat, string> = {
  fortio: 'Fortio JSON',
  nighthawk: 'Nighthawk output',
  k6: 'a k6 summary',
  wrk2: 'a wrk2 report',
  smp: 'an SMP result',
  'istio-csv': 'an Istio perf CSV',
};

export function decodeResults(
  text: string,
  format: ResultFormat | 'auto' = 'auto',
): DecodedResults {
  if (text.trim() === '') throw new ResultFileError('empty', 'the file is empty');
  const detected = detectFormat(text);
  let chosen: ResultFormat;
  if (format === 'auto') {
    if (detected === null) {
      // A broken JSON file is reported as such rather than as an unknown format.
      if (looksLikeJson(text)) parseJson(text);
      throw new ResultFileError(
        'undetectable',
        'cannot tell the format of the file: expected Fortio, Nighthawk or k6 JSON, a wrk2 report, an SMP result (YAML or JSON) or an Istio perf CSV; pass ?format= to name it',
      );
    }
    chosen = detected;
  } else {
    if (detected !== null && detected !== format) {
      throw new ResultFileError(
        'format_mismatch',
        `the file is ${NAMES[detected]}, not ${NAMES[format]} as format=${format} says`,
      );
    }
    chosen = format;
  }

  const decoded = DECODERS[chosen](text);
  decoded.results.forEach((r, i) => {
    const checked = loadResult.safeParse(r);
    const issue = checked.success ? undefined : checked.error.issues[0];
    if (issue) {
      const field = issue.path.join('.');
      throw new ResultFileError('invalid_value', `result ${i + 1}: ${field} ${issue.message}`, {
        field,
      });
    }
  });
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
