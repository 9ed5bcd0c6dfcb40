// An upload's intervals merged onto a run's kept slots (addUpload, addUploadSteps,
// addUploadFinishing): the slots they give equal buildSlots over every interval at once,
// and each refuses (null) where adding on would not: kept slots missing an earlier interval,
// another grid, or histograms whose sum would depend on the order they are added in.
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import {
  addUpload,
  addUploadFinishing,
  addUploadSteps,
  buildSlots,
  type KeptSlots,
  type Slot,
  type SlotGrid,
  type StoredInterval,
} from './load-steps.ts';

/** An interval's histogram as hdr-histogram-js records and encodes it. */
function hdrOf(values: number[], digits = 3, lowest = 1): Uint8Array {
  const h = build({
    numberOfSignificantValueDigits: digits as 3,
    lowestDiscernibleValue: lowest,
    highestTrackableValue: 3_600_000_000,
  });
  for (const v of values) h.recordValue(v);
  return new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64'));
}

type UploadInterval = Omit<StoredInterval, 'resultId'>;
const interval = (
  startMs: number,
  values: number[],
  errors: number | null = null,
  durationMs = 1000,
  hdr = hdrOf(values),
): UploadInterval => ({ startMs, durationMs, count: values.length, errors, hdr });

const US = { hdrUnit: 'us' };
const GRID: SlotGrid = { intervalMs: 1000, unit: 'us' };

/** A slot as numbers: what the stages view reads of it. */
const facts = (s: Slot) => ({
  startMs: s.startMs,
  durationMs: s.durationMs,
  requests: s.requests,
  errors: s.errors,
  generators: s.generators,
  rounding: s.merger.rounding,
  total: s.merger.counts?.total ?? 0,
  counts: [...(s.merger.counts?.counts ?? [])],
});

/** The kept slots of `earlier` (one point's intervals), as a Map by start. */
function keptOf(earlier: UploadInterval[], labels = US) {
  const { grid, slots } = buildSlots(
    [{ id: 1, labels }],
    earlier.map((i) => ({ ...i, resultId: 1 })),
  );
  return {
    kept: { grid, intervals: earlier.length } as KeptSlots,
    slots: new Map(slots.map((s) => [s.startMs, s])),
  };
}

/** The reference: every interval, earlier and uploaded, built at once. */
function reference(
  earlier: UploadInterval[],
  upload: { labels: Record<string, string>; intervals: UploadInterval[] }[],
) {
  const points = [
    { id: 1, labels: US },
    ...upload.map((p, k) => ({ id: k + 2, labels: p.labels })),
  ];
  const intervals = [
    ...earlier.map((i) => ({ ...i, resultId: 1 })),
    ...upload.flatMap((p, k) => p.intervals.map((i) => ({ ...i, resultId: k + 2 }))),
  ];
  return buildSlots(points, intervals).slots;
}

describe('addUpload: an upload onto kept slots', () => {
  const earlier = [interval(0, [1000, 2000], 1), interval(1000, [3000])];
  const upload = [
    // 20 ms rounds to slot 0; 2,400 ms to 2,000 (a new slot); 1,600 ms to 2,000 too.
    { labels: US, intervals: [interval(20, [4000], 2), interval(2400, [5000, 6000])] },
    {
      labels: { hdrUnit: 'us', hdrRoundingMs: '0.5' },
      intervals: [interval(1600, [7000], null, 1500)],
    },
  ];

  it('gives the slots building every interval at once gives, the kept ones changed in place', () => {
    const { kept, slots } = keptOf(earlier);
    const slot0 = slots.get(0);
    const changed = addUpload(kept, 2, GRID, slots, upload);
    expect(changed).not.toBeNull();
    // Slots 0 and 2,000 changed, in the order the upload first reached them; 1,000 did not.
    expect(changed?.map((s) => s.startMs)).toEqual([0, 2000]);
    expect(changed?.[0]).toBe(slot0);
    // Slot 0: 2 earlier requests with 1 error, and 1 more with 2 errors, the longest 1 s.
    expect(changed?.[0]).toMatchObject({ requests: 3, errors: 3, generators: 2, durationMs: 1000 });
    // Slot 2,000: 2 requests without an error count, 1 with none stated either.
    expect(changed?.[1]).toMatchObject({
      requests: 3,
      errors: null,
      generators: 2,
      durationMs: 1500,
    });
    expect(changed?.[1]?.merger.rounding).toBe(0.5);
    const all = [...slots.values()].sort((a, b) => a.startMs - b.startMs).map(facts);
    expect(all).toEqual(reference(earlier, upload).map(facts));
  });

  it('starts from no kept slots when there were none (no grid yet)', () => {
    const slots = new Map<number, Slot>();
    const changed = addUpload({ grid: null, intervals: 0 }, 0, GRID, slots, upload);
    expect(changed?.map((s) => s.startMs)).toEqual([0, 2000]);
    expect(changed?.map(facts)).toEqual(reference([], upload).map(facts));
    expect([...slots.keys()].sort()).toEqual([0, 2000]);
  });

  it('refuses when the kept slots do not hold every earlier interval', () => {
    const { kept, slots } = keptOf(earlier);
    // 3 intervals stored before, 2 kept: one is missing from the slots.
    expect(addUpload(kept, 3, GRID, slots, upload)).toBeNull();
    expect(addUpload({ ...kept, intervals: -1 }, 2, GRID, slots, upload)).toBeNull();
    // Nothing was added before refusing.
    expect(slots.get(0)?.requests).toBe(2);
  });

  it('refuses another grid: a slot length or a unit the kept slots are not on', () => {
    const { kept, slots } = keptOf(earlier);
    expect(addUpload(kept, 2, { intervalMs: 500, unit: 'us' }, slots, upload)).toBeNull();
    expect(addUpload(kept, 2, { intervalMs: 1000, unit: 'ns' }, slots, upload)).toBeNull();
    expect(slots.get(0)?.requests).toBe(2);
    expect(addUpload(kept, 2, GRID, slots, upload)).not.toBeNull();
  });

  it('refuses histograms whose sum would depend on the order (other digits or lowest value)', () => {
    for (const hdr of [hdrOf([4000], 2), hdrOf([4000], 3, 8)]) {
      const { kept, slots } = keptOf(earlier);
      const odd = [{ labels: US, intervals: [interval(0, [4000], null, 1000, hdr)] }];
      expect(addUpload(kept, 2, GRID, slots, odd)).toBeNull();
    }
    // Into a new slot, any structure adds: nothing was there before it.
    const { kept, slots } = keptOf(earlier);
    const fresh = [
      { labels: US, intervals: [interval(5000, [4000], null, 1000, hdrOf([4000], 2))] },
    ];
    expect(addUpload(kept, 2, GRID, slots, fresh)?.map((s) => s.startMs)).toEqual([5000]);
  });

  it('steps once per interval uploaded', () => {
    const { kept, slots } = keptOf(earlier);
    const steps = addUploadSteps(kept, 2, GRID, slots, upload);
    let yields = 0;
    for (let s = steps.next(); !s.done; s = steps.next()) yields++;
    expect(yields).toBe(3);
  });
});

describe('addUploadFinishing: each slot finished once the upload adds nothing more to it', () => {
  const earlier = [interval(0, [1000, 2000], 1), interval(1000, [3000])];
  // Slot 0 is reached first and last: it finishes after slot 2,000.
  const upload = [
    { labels: US, intervals: [interval(10, [4000], 2), interval(2000, [5000, 6000])] },
    { labels: US, intervals: [interval(30, [7000], 0)] },
  ];

  function finishing(
    kept: KeptSlots,
    earlierIntervals: number,
    grid: SlotGrid,
    slots: Map<number, Slot>,
  ) {
    const seen: { startMs: number; requests: number; held: boolean }[] = [];
    const steps = addUploadFinishing(kept, earlierIntervals, grid, slots, upload, (s) => {
      // The slot is whole when finished: still in the map until then.
      seen.push({ startMs: s.startMs, requests: s.requests, held: slots.get(s.startMs) === s });
      return facts(s);
    });
    let yields = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) yields++;
    return { out: step.value, seen, yields };
  }

  it('finishes each changed slot whole, in the order it became whole, and lets it go', () => {
    const { kept, slots } = keptOf(earlier);
    const { out, seen, yields } = finishing(kept, 2, GRID, slots);
    expect(yields).toBe(3);
    // Slot 2,000 is whole after the upload's 2nd interval, slot 0 after its 3rd.
    expect(seen).toEqual([
      { startMs: 2000, requests: 2, held: true },
      { startMs: 0, requests: 4, held: true },
    ]);
    const ref = reference(earlier, upload);
    expect(out).toEqual([ref[2], ref[0]].map((s) => facts(s as Slot)));
    // Finished slots are let go; the slot the upload did not reach stays.
    expect([...slots.keys()]).toEqual([1000]);
  });

  it('refuses as addUpload does, finishing nothing', () => {
    for (const [earlierIntervals, grid] of [
      [3, GRID],
      [2, { intervalMs: 2000, unit: 'us' }],
      [2, { intervalMs: 1000, unit: 'ms' }],
    ] as const) {
      const { kept, slots } = keptOf(earlier);
      const { out, seen } = finishing(kept, earlierIntervals, grid, slots);
      expect(out).toBeNull();
      expect(seen).toEqual([]);
    }
    const { slots } = keptOf(earlier);
    expect(finishing({ grid: null, intervals: 0 }, 2, GRID, slots).out).toBeNull();
  });

  it('starts from no kept slots when there were none', () => {
    const slots = new Map<number, Slot>();
    const { out } = finishing({ grid: null, intervals: 0 }, 0, GRID, slots);
    const ref = reference([], upload);
    expect(out).toEqual([ref[1], ref[0]].map((s) => facts(s as Slot)));
    expect(slots.size).toBe(0);
  });

  it('refuses a histogram whose sum would depend on the order', () => {
    const { kept, slots } = keptOf(earlier);
    const odd = [{ labels: US, intervals: [interval(0, [4000], null, 1000, hdrOf([4000], 2))] }];
    const finished: Slot[] = [];
    const steps = addUploadFinishing(kept, 2, GRID, slots, odd, (s) => finished.push(s));
    let step = steps.next();
    while (!step.done) step = steps.next();
    expect(step.value).toBeNull();
    expect(finished).toEqual([]);
  });
});
