import { describe, expect, it } from 'vitest';
import { FirstApplications } from './first-applications.ts';
import {
  BUSY_SLICE_MS,
  readStarted,
  runSliced,
  runWhole,
  SLICE_MS,
  sliceMs,
  sortSteps,
} from './slices.ts';

/** mulberry32: the same values every run. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('sortSteps', () => {
  it('sorts as Float64Array.sort does, for sizes around the run length and duplicates', () => {
    const next = random(26);
    for (const n of [0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1000, 4099]) {
      for (const run of [1, 2, 3, 8, 64]) {
        const values = Float64Array.from({ length: n }, () =>
          // Epoch microseconds, some repeated, some before the change (negative latencies).
          next() < 0.2 ? 1_700_000_000_000_000 : Math.round((next() - 0.1) * 1e12),
        );
        const expected = values.slice().sort();
        expect([...runWhole(sortSteps(values, run))], `n ${n}, run ${run}`).toEqual([...expected]);
        expect([...values]).toEqual([...expected]); // in place
      }
    }
  });

  it('takes no step longer than its run: a sort of n values yields at least n / run times', () => {
    const values = Float64Array.from({ length: 10_000 }, random(7));
    let steps = 0;
    const sort = sortSteps(values, 100);
    while (!sort.next().done) steps++;
    // 100 runs sorted, then 7 passes of merging (100 to 12,800), each in steps of 100.
    expect(steps).toBeGreaterThanOrEqual(100 + 7 * 100);
    expect([...values]).toEqual([...values.slice().sort()]);
  });

  it('gives FirstApplications the latencies its whole sort gives', () => {
    const next = random(3);
    const whole = new FirstApplications();
    const stepped = new FirstApplications();
    for (let i = 0; i < 20_000; i++) {
      const proxy = `p${Math.floor(next() * 16_000)}`;
      const at = 1_700_000_000_000_000 + Math.round(next() * 3e7);
      whole.add(proxy, at);
      stepped.add(proxy, at);
    }
    whole.prepare();
    runWhole(stepped.prepareSteps());
    expect([...stepped.latencies(1_700_000_000_000_000).sorted]).toEqual([
      ...whole.latencies(1_700_000_000_000_000).sorted,
    ]);
  });
});

describe('slices while reads are in progress', () => {
  it('are short from the start of a read until its end, in whatever order reads end', () => {
    expect(sliceMs()).toBe(SLICE_MS);
    const a = readStarted();
    const b = readStarted();
    expect(sliceMs()).toBe(BUSY_SLICE_MS);
    a();
    a(); // a second call does not end b's read
    expect(sliceMs()).toBe(BUSY_SLICE_MS);
    b();
    expect(sliceMs()).toBe(SLICE_MS);
    expect(BUSY_SLICE_MS).toBeLessThan(SLICE_MS);
  });

  it('runSliced asks for the slice at every step, so a read starting mid-run shortens it', async () => {
    const asked: number[] = [];
    let done: (() => void) | undefined;
    function* steps() {
      for (let i = 0; i < 4; i++) {
        if (i === 2) done = readStarted();
        yield;
      }
      return 'end';
    }
    const result = await runSliced(steps(), () => {
      const ms = sliceMs();
      asked.push(ms);
      return ms;
    });
    done?.();
    expect(result).toBe('end');
    expect(asked).toEqual([SLICE_MS, SLICE_MS, BUSY_SLICE_MS, BUSY_SLICE_MS]);
  });
});

describe('runSliced: the event loop runs between slices, not within one', () => {
  /** Turns of the event loop since it started: a setImmediate that schedules itself again. */
  function loopTurns() {
    let turns = 0;
    let on = true;
    const tick = () => {
      turns++;
      if (on) setImmediate(tick);
    };
    setImmediate(tick);
    return {
      get turns() {
        return turns;
      },
      stop: () => {
        on = false;
      },
    };
  }
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until) {}
  };

  it('runs a computation within its slice without letting the loop turn', async () => {
    const loop = loopTurns();
    const seen: number[] = [];
    function* steps() {
      for (let i = 0; i < 5; i++) {
        seen.push(loop.turns);
        yield;
      }
      return 5;
    }
    expect(await runSliced(steps(), () => 60_000)).toBe(5);
    loop.stop();
    expect(seen).toEqual([0, 0, 0, 0, 0]);
  });

  it('lets the loop turn after each step that ends past its slice, and starts a new slice then', async () => {
    const loop = loopTurns();
    const seen: number[] = [];
    function* steps() {
      // Step 0 takes 60 ms, past a 30 ms slice; steps 1 to 3 are quick, within a new one.
      busy(60);
      seen.push(loop.turns);
      yield;
      for (let i = 1; i < 4; i++) {
        seen.push(loop.turns);
        yield;
      }
      return 'done';
    }
    expect(await runSliced(steps(), () => 30)).toBe('done');
    loop.stop();
    expect(seen[0]).toBe(0);
    // The loop turned once after step 0, and not again within the new slice.
    expect(seen[1]).toBeGreaterThan(0);
    expect(seen.slice(1)).toEqual([seen[1], seen[1], seen[1]]);
  });

  it('runs a computation of no steps to its value', async () => {
    // biome-ignore lint/correctness/useYield: a computation that is done at once
    function* none(): Generator<unknown, string> {
      return 'at once';
    }
    expect(await runSliced(none())).toBe('at once');
    expect(runWhole(none())).toBe('at once');
  });
});
