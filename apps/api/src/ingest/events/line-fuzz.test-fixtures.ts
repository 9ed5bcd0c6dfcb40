// Seeded mutations of one NDJSON line, for the byte readers' fuzz tests (observation and
// clock lines): each round makes 1-3 edits (insert, delete or replace one character from the
// alphabet) at seeded places, so a run is the same every time.

/** `rounds` mutated copies of `base`, drawn from a linear congruential sequence from `seed`. */
export function* mutatedLines(
  base: string,
  alphabet: readonly string[],
  rounds: number,
  seed = 42,
): Generator<string> {
  const random = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  for (let round = 0; round < rounds; round++) {
    let line = base;
    for (let edits = 1 + random(3); edits > 0; edits--) {
      const pos = random(line.length + 1);
      const ch = alphabet[random(alphabet.length)] as string;
      const op = random(3);
      line =
        op === 0
          ? line.slice(0, pos) + ch + line.slice(pos)
          : op === 1
            ? line.slice(0, pos) + line.slice(pos + 1)
            : line.slice(0, pos) + ch + line.slice(pos + 1);
    }
    yield line;
  }
}
