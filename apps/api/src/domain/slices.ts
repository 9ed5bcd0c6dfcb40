// Long computations as generators that yield between their steps, so that one caller can run
// them at once and another in slices between which the event loop serves other requests.

/** How long a sliced computation runs before it lets the event loop run (reads among others). */
export const SLICE_MS = 20;

/**
 * The slice while a read is in progress. A read on Postgres takes a turn of the event loop for
 * each of its queries' answers, and each turn waits behind one slice: a read of 8 queries
 * waited 8 x 20 ms behind an upload's 20 ms slices. PGlite answers in microtasks, so it did not.
 */
export const BUSY_SLICE_MS = 4;

let readsInProgress = 0;

/** Counts a read in progress until `done` is called (once; later calls do nothing). */
export function readStarted(): () => void {
  readsInProgress++;
  let open = true;
  return () => {
    if (open) readsInProgress--;
    open = false;
  };
}

/** The slice to run now: short while a read is in progress, else SLICE_MS. */
export const sliceMs = () => (readsInProgress > 0 ? BUSY_SLICE_MS : SLICE_MS);

/** Lets timers and I/O waiting behind a computation run. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs a stepped computation to its end at once. */
export function runWhole<T>(steps: Generator<unknown, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Runs a stepped computation in slices (sliceMs(): SLICE_MS, or BUSY_SLICE_MS while a read is in
 * progress), the event loop running between them.
 */
export async function runSliced<T>(
  steps: Generator<unknown, T>,
  slice: () => number = sliceMs,
): Promise<T> {
  let started = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - started > slice()) {
      await yieldToLoop();
      started = performance.now();
    }
  }
}

/**
 * Sorts `values` in place in ascending order, as `Float64Array.prototype.sort` does, by runs
 * of `run` values sorted on their own and then merged pairwise, a step at most `run` values
 * long: a batch's 550,000 times took 70-110 ms as one sort, every read waiting. For times
 * (no NaN; -0 and 0 may come out in either order).
 */
export function* sortSteps(values: Float64Array, run = 32_768): Generator<unknown, Float64Array> {
  const n = values.length;
  for (let from = 0; from < n; from += run) {
    values.subarray(from, Math.min(n, from + run)).sort();
    yield;
  }
  let src = values;
  let dst: Float64Array = new Float64Array(n);
  for (let width = run; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      for (let k = lo; k < hi; ) {
        for (const stop = Math.min(hi, k + run); k < stop; k++) {
          if (j >= hi || (i < mid && (src[i] as number) <= (src[j] as number)))
            dst[k] = src[i++] as number;
          else dst[k] = src[j++] as number;
        }
        yield;
      }
    }
    [src, dst] = [dst, src];
  }
  if (src !== values) values.set(src);
  return values;
}
