// Long computations as generators that yield between their steps, so that one caller can run
// them at once and another in slices between which the event loop serves other requests.

/** How long a sliced computation runs before it lets the event loop run (reads among others). */
export const SLICE_MS = 20;

/** Lets timers and I/O waiting behind a computation run. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs a stepped computation to its end at once. */
export function runWhole<T>(steps: Generator<unknown, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs a stepped computation in slices of about SLICE_MS, the event loop running between them. */
export async function runSliced<T>(steps: Generator<unknown, T>, sliceMs = SLICE_MS): Promise<T> {
  let started = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - started > sliceMs) {
      await yieldToLoop();
      started = performance.now();
    }
  }
}
