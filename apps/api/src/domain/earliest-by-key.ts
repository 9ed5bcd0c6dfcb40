// The earliest value seen per key, keys being byte strings: an open-addressing hash table
// over typed arrays. A batch of 178,000 observations adds 178,000 keys; a Map of strings
// would make a string per key and a map entry per key, and collect them all again.

const EMPTY = 0;

/** FNV-1a over the bytes, then murmur3's finaliser so that the low bits spread too. */
export function hashBytes(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = from; i < to; i++) h = Math.imul(h ^ (b[i] as number), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * A second hash of the bytes, independent of hashBytes (another basis and finaliser), so
 * that the two make a 53-bit fingerprint.
 */
function hashBytes2(b: Uint8Array, from: number, to: number): number {
  let h = 0x2545f491 | 0;
  for (let i = from; i < to; i++) h = Math.imul(h ^ (b[i] as number), 0x01000193) ^ (h >>> 15);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  h = Math.imul(h, 0x297a2d39);
  return h ^ (h >>> 15);
}

function grown<T extends Int32Array | Float64Array | Uint8Array>(a: T, size: number): T {
  const next = new (a.constructor as new (n: number) => T)(size);
  next.set(a);
  return next;
}

export class EarliestByKey {
  /** The keys' bytes, one after another. */
  private arena = new Uint8Array(64 * 1024);
  private arenaUsed = 0;
  private starts = new Int32Array(1024);
  private lengths = new Int32Array(1024);
  private hashes = new Int32Array(1024);
  private earliest = new Float64Array(1024);
  /** Entry number + 1 per slot; EMPTY where none. */
  private slots = new Int32Array(2048);
  size = 0;

  /**
   * Keeps `value` for the key b[from, to) if it is the key's first or earliest: returns the
   * key's entry number (in the order keys came) when it did, -1 when the key kept an earlier
   * or equal value.
   */
  add(b: Uint8Array, from: number, to: number, value: number): number {
    const h = hashBytes(b, from, to);
    const length = to - from;
    const slots = this.slots;
    const mask = slots.length - 1;
    let s = h & mask;
    for (let e = slots[s] as number; e !== EMPTY; e = slots[s] as number) {
      const k = e - 1;
      if (this.hashes[k] === h && this.lengths[k] === length && this.keyIs(k, b, from)) {
        if (!(value < (this.earliest[k] as number))) return -1;
        this.earliest[k] = value;
        return k;
      }
      s = (s + 1) & mask;
    }
    return this.insert(s, h, b, from, to, value);
  }

  /** The entry number of the key b[from, to), added (with value 0) when new. */
  entryOf(b: Uint8Array, from: number, to: number): number {
    const h = hashBytes(b, from, to);
    const length = to - from;
    const slots = this.slots;
    const mask = slots.length - 1;
    let s = h & mask;
    for (let e = slots[s] as number; e !== EMPTY; e = slots[s] as number) {
      const k = e - 1;
      if (this.hashes[k] === h && this.lengths[k] === length && this.keyIs(k, b, from)) return k;
      s = (s + 1) & mask;
    }
    return this.insert(s, h, b, from, to, 0);
  }

  /** Entry k's key, decoded as UTF-8. */
  key(k: number): string {
    const start = this.starts[k] as number;
    return Buffer.from(this.arena.buffer, this.arena.byteOffset, this.arenaUsed).toString(
      'utf8',
      start,
      start + (this.lengths[k] as number),
    );
  }

  /** `add` for a key given as a string: its UTF-8 bytes are the key. */
  addString(key: string, value: number): number {
    const bytes = Buffer.from(key);
    return this.add(bytes, 0, bytes.length, value);
  }

  private keyIs(k: number, b: Uint8Array, from: number): boolean {
    const arena = this.arena;
    const start = this.starts[k] as number;
    const length = this.lengths[k] as number;
    for (let i = 0; i < length; i++) if (arena[start + i] !== b[from + i]) return false;
    return true;
  }

  private insert(
    s: number,
    h: number,
    b: Uint8Array,
    from: number,
    to: number,
    value: number,
  ): number {
    const k = this.size;
    if (k === this.starts.length) {
      const n = k * 2;
      this.starts = grown(this.starts, n);
      this.lengths = grown(this.lengths, n);
      this.hashes = grown(this.hashes, n);
      this.earliest = grown(this.earliest, n);
    }
    const length = to - from;
    if (this.arenaUsed + length > this.arena.length) {
      this.arena = grown(this.arena, Math.max(this.arena.length * 2, this.arenaUsed + length));
    }
    const arena = this.arena;
    let p = this.arenaUsed;
    this.starts[k] = p;
    for (let i = from; i < to; i++) arena[p++] = b[i] as number;
    this.arenaUsed = p;
    this.lengths[k] = length;
    this.hashes[k] = h;
    this.earliest[k] = value;
    this.slots[s] = k + 1;
    this.size = k + 1;
    if (this.size * 2 > this.slots.length) this.rehash();
    return k;
  }

  /** Twice the slots, at most half of them used. */
  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let k = 0; k < this.size; k++) {
      let s = (this.hashes[k] as number) & mask;
      while (slots[s] !== EMPTY) s = (s + 1) & mask;
      slots[s] = k + 1;
    }
    this.slots = slots;
  }

  /**
   * A 53-bit fingerprint of each key (an integer a float64 holds exactly), in the order
   * the keys came: equal keys always have equal fingerprints, so a key whose fingerprint
   * is not among another set's has certainly not been in that set.
   */
  fingerprints(): Float64Array {
    const out = new Float64Array(this.size);
    const arena = this.arena;
    for (let k = 0; k < this.size; k++) {
      const start = this.starts[k] as number;
      const second = hashBytes2(arena, start, start + (this.lengths[k] as number));
      out[k] = ((this.hashes[k] as number) >>> 0) * 2 ** 21 + (second >>> 11);
    }
    return out;
  }

  /** The earliest values, in the order the keys came. */
  values(): Float64Array {
    return this.earliest.subarray(0, this.size);
  }

  /** Each key, decoded as UTF-8, with its earliest value. */
  *entries(): IterableIterator<[string, number]> {
    const text = Buffer.from(this.arena.buffer, this.arena.byteOffset, this.arenaUsed);
    for (let k = 0; k < this.size; k++) {
      const start = this.starts[k] as number;
      yield [
        text.toString('utf8', start, start + (this.lengths[k] as number)),
        this.earliest[k] as number,
      ];
    }
  }
}
