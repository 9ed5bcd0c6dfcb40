// One read asked for by many runs at once, answered by one query: the calls made until the
// event loop turns (every run of a page at the same step of its reads) are gathered and
// loaded together, so a page of runs costs the queries of one run, not one run's per run.

/**
 * A read of one key that waits for the loop to turn, then loads every key asked for by then
 * in one call of `load` (the same key once). `load` answers by `keyOf`; a key it leaves out
 * is answered undefined. Nothing is kept after a batch: a later call reads again.
 */
export function batchedRead<K, V>(
  keyOf: (key: K) => string,
  load: (keys: K[]) => Promise<Map<string, V>>,
): (key: K) => Promise<V | undefined> {
  let pending: Map<string, { key: K; waiting: Promise<V | undefined> }> | null = null;
  let answered: Promise<Map<string, V>> | null = null;
  return (key) => {
    if (!pending) {
      const batch = new Map<string, { key: K; waiting: Promise<V | undefined> }>();
      pending = batch;
      answered = new Promise<Map<string, V>>((resolve, reject) => {
        setImmediate(() => {
          pending = null;
          load([...batch.values()].map((b) => b.key)).then(resolve, reject);
        });
      });
    }
    const id = keyOf(key);
    const asked = pending.get(id);
    if (asked) return asked.waiting;
    const loaded = answered as Promise<Map<string, V>>;
    const waiting = loaded.then((found) => found.get(id));
    pending.set(id, { key, waiting });
    return waiting;
  };
}
