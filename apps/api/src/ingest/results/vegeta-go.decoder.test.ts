// Vegeta's binary results as Go itself writes them: encoding/gob over Vegeta's own Result
// struct (fixtures/generated/vegeta-gob/main.go), read exactly.
import { describe, expect, it } from 'vitest';
import { sampleOf } from './sample-formats.test-helpers.ts';
import { publicFixture } from './test-fixtures.ts';
import { decodeVegetaJson } from './vegeta.decoder.ts';
import { expectVegetaRecomputed, GO_VEGETA_FILES, goVegeta } from './vegeta-go.test-fixtures.ts';
import { isVegetaGob } from './vegeta-gob.decoder.ts';
import { encodeVegetaGob, vegetaResultOfJson } from './vegeta-gob.encode.ts';

describe("Vegeta's gob results written by Go's encoding/gob", () => {
  it.each(GO_VEGETA_FILES)(
    '%s: read exactly, every figure as its samples give it',
    async (name) => {
      const { gob, samples } = goVegeta(name);
      expect(isVegetaGob(gob)).toBe(true);
      const decoded = await sampleOf('vegeta', gob);
      expectVegetaRecomputed(decoded.results[0], samples);
      // Fed in small pieces: the same.
      expect(await sampleOf('vegeta', gob, gob.length > 10_000 ? 997 : 1)).toEqual(decoded);
    },
  );

  it('decode as the JSON lines the real Vegeta wrote, which Go encoded', async () => {
    for (const name of GO_VEGETA_FILES.slice(0, 3)) {
      const text = publicFixture(`vegeta/${name}.json`);
      expect(await sampleOf('vegeta', goVegeta(name).gob)).toEqual(decodeVegetaJson(text));
    }
  });

  it("equal, byte for byte, what this repo's TypeScript encoder writes for the same lines", () => {
    // ocm-api-load-results is left out: its body "Hello World" is no base64, which Go's
    // program keeps as its bytes and the TypeScript encoder decodes leniently.
    for (const name of ['e2e-2019-results', 'loadgentest-2016-results']) {
      const lines = publicFixture(`vegeta/${name}.json`)
        .split('\n')
        .filter((l) => l.trim() !== '');
      expect(Buffer.from(encodeVegetaGob(lines.map(vegetaResultOfJson)))).toEqual(
        goVegeta(name).gob,
      );
    }
  });
});
