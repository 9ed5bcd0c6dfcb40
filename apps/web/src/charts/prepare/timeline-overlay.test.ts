import { describe, expect, it } from 'vitest';
import {
  comparedPhases,
  comparedSeries,
  defaultSeries,
  type OverlayTimeline,
  overlayDomain,
  overlayRows,
  phaseLines,
  seriesLines,
} from './timeline-overlay.ts';

const timeline = (over: Partial<OverlayTimeline>): OverlayTimeline => ({
  durationMs: 10_000,
  bucketMs: 1_000,
  phases: [],
  series: [],
  ...over,
});

describe('overlayRows', () => {
  it('holds counts from 0 and series only between their own points', () => {
    const rows = overlayRows([
      {
        key: 'r0',
        kind: 'cumulative',
        points: [
          { offsetMs: 1000, value: 2 },
          { offsetMs: 3000, value: 5 },
        ],
      },
      {
        key: 'r1',
        kind: 'series',
        points: [
          { offsetMs: 2000, value: 40 },
          { offsetMs: 1500, value: 10 },
        ],
      },
    ]);
    expect(rows).toEqual([
      { t: 1000, r0: 2, r1: null },
      { t: 1500, r0: 2, r1: 10 },
      { t: 2000, r0: 2, r1: 40 },
      { t: 3000, r0: 5, r1: null },
    ]);
  });

  it('gives a run that starts later 0 until its first point', () => {
    const rows = overlayRows([
      { key: 'r0', kind: 'cumulative', points: [{ offsetMs: 0, value: 1 }] },
      { key: 'r1', kind: 'cumulative', points: [{ offsetMs: 500, value: 3 }] },
    ]);
    expect(rows).toEqual([
      { t: 0, r0: 1, r1: 0 },
      { t: 500, r0: 1, r1: 3 },
    ]);
  });
});

describe('comparedPhases', () => {
  it('lists every phase once, the baseline order first, null where a run lacks it', () => {
    const a = timeline({
      phases: [
        { phase: 'joined', total: 2, points: [{ offsetMs: 0, count: 2 }] },
        { phase: 'running', total: 2, points: [] },
      ],
    });
    const b = timeline({
      phases: [
        { phase: 'scheduled', total: 4, points: [] },
        { phase: 'joined', total: 4, points: [{ offsetMs: 0, count: 1 }] },
      ],
    });
    const phases = comparedPhases([a, null, b]);
    expect(phases.map((p) => p.phase)).toEqual(['joined', 'running', 'scheduled']);
    expect(phases[0]?.runs.map((r) => r?.total ?? null)).toEqual([2, null, 4]);
    expect(phaseLines(phases[0] as (typeof phases)[number], ['r0', 'r1', 'r2'])).toEqual([
      { key: 'r0', kind: 'cumulative', points: [{ offsetMs: 0, value: 2 }] },
      { key: 'r2', kind: 'cumulative', points: [{ offsetMs: 0, value: 1 }] },
    ]);
  });
});

describe('comparedSeries', () => {
  const s = (name: string, unit: string | null = null) => ({
    name,
    unit,
    points: [{ offsetMs: 0, value: 1 }],
  });

  it('keeps names two runs share, the most widespread first', () => {
    const series = comparedSeries([
      timeline({ series: [s('only.here'), s('mem'), s('cpu', '%')] }),
      timeline({ series: [s('cpu'), s('mem')] }),
      timeline({ series: [s('cpu')] }),
    ]);
    expect(series.map((x) => [x.name, x.present, x.unit])).toEqual([
      ['cpu', 3, '%'],
      ['mem', 2, null],
    ]);
    expect(seriesLines(series[1] as (typeof series)[number], ['r0', 'r1', 'r2'])).toHaveLength(2);
    expect(defaultSeries(series)).toBe('cpu');
  });

  it("shows a lone run's own series when no other run has any", () => {
    const series = comparedSeries([timeline({ series: [s('a'), s('b')] }), null]);
    expect(series.map((x) => x.name)).toEqual(['a', 'b']);
    expect(defaultSeries(series)).toBe('a');
    expect(defaultSeries([])).toBeNull();
  });
});

describe('overlayDomain', () => {
  it('runs from 0 to the end of the longest run', () => {
    expect(
      overlayDomain([timeline({ durationMs: 5_000 }), null, timeline({ durationMs: 9_000 })]),
    ).toEqual([0, 9_000]);
    expect(overlayDomain([timeline({ durationMs: 0, bucketMs: 1_000 })])).toEqual([0, 1_000]);
  });
});

describe('comparing a counter of CPU seconds', () => {
  it('puts runs on different bucket lengths in cores', () => {
    const cpu = (values: number[], bucketMs: number) =>
      timeline({
        bucketMs,
        series: [
          {
            name: 'process_cpu_seconds_total',
            kind: 'counter',
            unit: 's',
            points: values.map((value, i) => ({ offsetMs: i * bucketMs, value })),
          },
        ],
      });
    // 0.5 CPU s per 1 s bucket and 1 CPU s per 2 s bucket are both half a core; 3 CPU s
    // in 2 s is 1.5 cores.
    const [series] = comparedSeries([cpu([0.5, 0.5], 1000), cpu([1, 3], 2000)]);
    expect(series?.unit).toBe('{core}');
    expect(series?.runs.map((r) => r?.points.map((p) => p.value))).toEqual([
      [0.5, 0.5],
      [0.5, 1.5],
    ]);
  });
});
