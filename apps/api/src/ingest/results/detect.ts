// Tells a result file's format from its content alone, so "auto" needs no file name.
import type { ResultFormat } from '@meshbench/schema';
import { isIstioCsvHeader } from './istio-csv.decoder.ts';
import { isK6Summary } from './k6.decoder.ts';
import { isMesheryResults, isSmpResult } from './smp.decoder.ts';
import { isRecord, looksLikeJson, parseJson, parseYaml } from './values.ts';
import { looksLikeWrk } from './wrk2.decoder.ts';

/** The format of a result file, or null when it is none we read (or is not parseable). */
export function detectFormat(text: string): ResultFormat | null {
  const body = text.replace(/^\uFEFF/, '');
  if (looksLikeJson(body)) return ofDocument(tryParse(() => parseJson(body)));
  const firstLine = body.trimStart().split(/\r?\n/, 1)[0] ?? '';
  if (isIstioCsvHeader(firstLine)) return 'istio-csv';
  if (looksLikeWrk(body)) return 'wrk2';
  return ofDocument(tryParse(() => parseYaml(body)));
}

function tryParse(parse: () => unknown): unknown {
  try {
    return parse();
  } catch {
    return undefined;
  }
}

function ofDocument(doc: unknown): ResultFormat | null {
  // Meshery wraps Fortio results, so it is tested before Fortio's own shape.
  if (isMesheryResults(doc)) return 'smp';
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
  if (isSmpResult(doc)) return 'smp';
  return null;
}
