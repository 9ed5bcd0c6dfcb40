// Sorted first-application latencies (microseconds) as fixed-size blocks. A summary read
// asks for ranks and bounds; only the blocks holding them are loaded, never the whole set.

/** Where rank r (1-based) lives. */
export const blockOfRank = (rank: number, blockSize: number) => Math.floor((rank - 1) / blockSize);

/**
 * The block that decides how many values are below `x`: the last block whose first value
 * is below x. Returns -1 when every value is >= x.
 */
export function blockOfBound(firsts: Float64Array, x: number, strict: boolean): number {
  let lo = 0;
  let hi = firsts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const first = firsts[mid] as number;
    if (strict ? first < x : first <= x) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/** Index of the first element of `values` that is >= x (strict) or > x (not strict). */
function upperIndex(values: Float64Array, x: number, strict: boolean): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = values[mid] as number;
    if (strict ? v < x : v <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Read access to a sorted sample, backed by whichever blocks were loaded. */
export class SortedLatencies {
  constructor(
    readonly n: number,
    readonly blockSize: number,
    /** First value of each block, in block order. */
    readonly firsts: Float64Array,
    private readonly blocks: ReadonlyMap<number, Float64Array>,
  ) {}

  /** Everything in memory, as one block set: for tests and freshly computed samples. */
  static fromSorted(sorted: Float64Array, blockSize = sorted.length || 1): SortedLatencies {
    const blocks = splitBlocks(sorted, blockSize);
    const firsts = new Float64Array(blocks.map((b) => b[0] as number));
    return new SortedLatencies(
      sorted.length,
      blockSize,
      firsts,
      new Map(blocks.map((b, i) => [i, b])),
    );
  }

  private block(no: number): Float64Array {
    const block = this.blocks.get(no);
    if (!block) throw new Error(`latency block ${no} was not loaded`);
    return block;
  }

  /** The value at 1-based rank r. */
  at(rank: number): number {
    const no = blockOfRank(rank, this.blockSize);
    // A block's first value is known without loading the block.
    if ((rank - 1) % this.blockSize === 0) return this.firsts[no] as number;
    return this.block(no)[rank - 1 - no * this.blockSize] as number;
  }

  /** How many values are < x (strict) or <= x. */
  countBelow(x: number, strict: boolean): number {
    const no = blockOfBound(this.firsts, x, strict);
    if (no < 0) return 0;
    return no * this.blockSize + upperIndex(this.block(no), x, strict);
  }
}

export function splitBlocks(sorted: Float64Array, blockSize: number): Float64Array[] {
  const blocks: Float64Array[] = [];
  for (let i = 0; i < sorted.length; i += blockSize) blocks.push(sorted.subarray(i, i + blockSize));
  return blocks;
}
