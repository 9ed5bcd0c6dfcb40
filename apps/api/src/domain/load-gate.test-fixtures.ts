// Load steps built as a generator would record them, for the load gate's tests and
// bench/load-gate: HdrHistograms that hdr-histogram-js itself encoded.
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { prng } from '../demo/prng.ts';
import { decodeHdr } from './hdr.ts';
import { countedOf, type LoadStepSide } from './load-gate.ts';
import { HdrMerger } from './load-steps.ts';

export const STEP = { mode: 'both', connections: 64, targetRps: 1000 };

/** A step whose histogram hdr-histogram-js itself recorded (values in µs, 3 digits). */
export function hdrStep(valuesUs: number[], scaleCounts = 1): LoadStepSide {
  const h = build({ numberOfSignificantValueDigits: 3 });
  for (const v of valuesUs) h.recordValueWithCount(v, scaleCounts);
  const counts = decodeHdr(new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64')));
  const merger = new HdrMerger('us');
  merger.add(counts, 'us');
  return {
    ...STEP,
    achievedRps: 1000,
    requests: valuesUs.length * scaleCounts,
    errors: 0,
    percentiles: merger.percentileValues([50, 90, 99, 99.9]),
    histogram: countedOf(merger.counts as NonNullable<typeof merger.counts>, 1000),
    format: 'hdr-log',
  };
}

/** n latencies in whole µs, log-normal around `medianUs`, from a seeded generator. */
export function logNormalUs(seed: number, n: number, medianUs = 2000): number[] {
  const rnd = prng(seed);
  return Array.from({ length: n }, () => Math.max(1, Math.round(rnd.logNormal(medianUs, 0.6))));
}
