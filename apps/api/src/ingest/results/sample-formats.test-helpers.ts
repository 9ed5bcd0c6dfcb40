// Test-only: a raw-sample file decoded from its bytes as the upload path decodes it.
import type { SampleDecoded } from './raw-samples.ts';
import { decodeSampleChunks, type SampleFormat } from './sample-formats.ts';

export function sampleOf(
  format: SampleFormat,
  bytes: Uint8Array,
  chunk = 65536,
): Promise<SampleDecoded> {
  return decodeSampleChunks(
    format,
    (async function* () {
      for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
    })(),
    { maxLineBytes: 1 << 20 },
  );
}
