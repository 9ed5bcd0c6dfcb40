import type { Timeline } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import {
  axisTitle,
  drawnSeries,
  joinMarkers,
  pendingPoints,
  ratePoints,
  scaleUpNumbers,
  scaleUpPhases,
  seriesGroups,
  seriesLabel,
  seriesUnit,
} from './scale-up.ts';
import {
  alignTimeline,
  bandKeys,
  formatValue,
  isCpuSecondsCounter,
  seriesKey,
} from './timeline.ts';

type Phase = Timeline['phases'][number];

/** A phase on 1 s buckets from its arrivals per bucket. */
function phase(name: string, arrivals: number[], total: number, timeTo: (number | null)[]): Phase {
  let count = 0;
  return {
    phase: name,
    count: arrivals.reduce((a, b) => a + b, 0),
    total,
    totalSource: 'topology',
    timeTo: [50, 90, 99, 100].map((percent, i) => ({ percent, offsetMs: timeTo[i] ?? null })),
    points: arrivals.map((n, i) => {
      count += n;
      return { offsetMs: i * 1000, count, ratePerSec: n };
    }),
  };
}

describe('scaleUpPhases', () => {
  it('finds the node, scheduled and running phases by name', () => {
    const joined = phase('joined', [1], 1, []);
    const scheduled = phase('alloc-scheduled', [1], 1, []);
    const running = phase('alloc-running', [1], 1, []);
    expect(scaleUpPhases([running, scheduled, joined])).toEqual({
      nodes: joined,
      scheduled,
      running,
    });
    expect(scaleUpPhases([joined])).toEqual({ nodes: joined, scheduled: null, running: null });
  });
});

describe('pendingPoints', () => {
  it('is scheduled minus running, bucket by bucket', () => {
    // Scheduled: 0, 4, 10, 12 cumulative; running: 0, 1, 5, 11.
    const scheduled = phase('scheduled', [0, 4, 6, 2], 12, []);
    const running = phase('running', [0, 1, 4, 6], 12, []);
    expect(pendingPoints(scheduled, running)?.map((p) => p.count)).toEqual([0, 3, 5, 1]);
    expect(pendingPoints(scheduled, null)).toBeNull();
  });
});

describe('ratePoints', () => {
  it('gives the arrivals per second of each bucket', () => {
    const scheduled = phase('scheduled', [0, 4, 6, 2], 12, []);
    expect(ratePoints(scheduled)).toEqual([
      { offsetMs: 0, value: 0 },
      { offsetMs: 1000, value: 4 },
      { offsetMs: 2000, value: 6 },
      { offsetMs: 3000, value: 2 },
    ]);
  });
});

describe('seriesLabel', () => {
  const cpu = (server: string) => ({
    name: 'consul.server.cpu_pct',
    tags: { run: 'r1', server, dc: 'dc1' },
  });
  it('names the server even when only one sent the metric, without the run or shared tags', () => {
    const one = cpu('consul-server-1');
    expect(seriesLabel(one, [one])).toBe('consul.server.cpu_pct {server=consul-server-1}');
  });
  it('shows the tags that differ between series of one name', () => {
    const a = { name: 'm', tags: { region: 'eu', dc: 'dc1' } };
    const b = { name: 'm', tags: { region: 'us', dc: 'dc1' } };
    expect(seriesLabel(a, [a, b])).toBe('m {region=eu}');
    expect(seriesLabel({ name: 'x', tags: {} }, [a, b])).toBe('x');
  });
});

describe('seriesUnit and axisTitle', () => {
  it('reads a StatsD name for its unit when the series has none', () => {
    expect(seriesUnit('consul.server.cpu_pct', null)).toBe('%');
    expect(seriesUnit('consul.server.memory_mb', null)).toBe('MiB');
    expect(seriesUnit('consul.xds.push_ms', null)).toBe('ms');
    expect(seriesUnit('consul.xds.pushes', null)).toBeNull();
    expect(seriesUnit('consul.xds.push_ms', 's')).toBe('s');
  });
  it('says what the axis counts in', () => {
    expect(axisTitle('%')).toBe('%');
    expect(axisTitle('MiB')).toBe('MiB');
    expect(axisTitle('{stream}')).toBe('streams');
    expect(axisTitle('By')).toBe('bytes');
    expect(axisTitle(null)).toBe('value');
  });
});

describe('seriesGroups', () => {
  it('puts one metric from several servers in one chart, in picking order', () => {
    const s = (id: string, name: string) => ({ id, name, unit: null });
    const groups = seriesGroups([s('1', 'cpu_pct'), s('2', 'mem_mb'), s('3', 'cpu_pct')]);
    expect(groups.map((g) => g.map((x) => x.id))).toEqual([['1', '3'], ['2']]);
  });

  it('groups by the metric when the names shown carry each series tags', () => {
    const s = (id: string, pod: string) => ({
      id,
      metric: 'process_cpu_seconds_total',
      name: `process_cpu_seconds_total {pod=${pod}}`,
      unit: 's',
    });
    const groups = seriesGroups([s('1', 'istiod-a'), s('2', 'istiod-b')]);
    expect(groups.map((g) => g.map((x) => x.id))).toEqual([['1', '2']]);
  });
});

describe('alignTimeline bands', () => {
  it('carries each bucket min and max beside the value, held like it', () => {
    const aligned = alignTimeline(
      [],
      [
        {
          id: '4',
          name: 'cpu',
          unit: '%',
          points: [
            { offsetMs: 0, value: 40, min: 38, max: 97 },
            { offsetMs: 2000, value: 8, min: null, max: null },
          ],
        },
        { id: '5', name: 'plain', unit: null, points: [{ offsetMs: 1000, value: 1 }] },
      ],
    );
    const { lo, hi } = bandKeys(seriesKey('4'));
    expect(aligned.series[0]?.band).toEqual({ lo, hi });
    expect(aligned.series[1]?.band).toBeUndefined();
    // t = 0, 1000 (held from 0), 2000 (no extremes: the value alone).
    expect(aligned.rows.map((r) => [r[lo], r[hi]])).toEqual([
      [38, 97],
      [38, 97],
      [8, 8],
    ]);
  });
});

describe('scaleUpNumbers', () => {
  it("quotes time to x % joined, the API's peak and steady levels and the placement rates", () => {
    // 10 nodes; 20 placements over 4 s (peak 8 in one 1 s bucket); 18 running.
    const joined = phase('joined', [2, 3, 5, 0, 0], 10, [1000, 2000, 2000, 2500]);
    const scheduled = phase('scheduled', [0, 4, 8, 6, 2], 20, [2000, 3000, 4000, 4000]);
    const running = phase('running', [0, 0, 4, 8, 6], 20, [3000, 4000, null, null]);
    const t: Timeline = {
      startedAt: '2026-02-01T00:00:00.000Z',
      finishedAt: null,
      durationMs: 5000,
      bucketMs: 1000,
      steadyFrom: { phase: 'joined', offsetMs: 2500 },
      phases: [joined, scheduled, running],
      series: [
        {
          id: '1',
          name: 'consul.server.cpu_pct',
          kind: 'gauge',
          source: 'statsd',
          unit: null,
          tags: { server: 'consul-server-2' },
          points: [],
          levels: { peak: 43.2, steady: 7.2 },
        },
        {
          id: '2',
          name: 'consul.server.memory_mb',
          kind: 'gauge',
          source: 'statsd',
          unit: null,
          tags: {},
          points: [],
          levels: { peak: 1160, steady: null },
        },
      ],
    };
    const byId = Object.fromEntries(scaleUpNumbers(t).map((n) => [n.id, n]));
    expect(byId['time-to-50']?.value).toBe('1.0 s');
    expect(byId['time-to-100']).toMatchObject({ label: 'All joined (100 %)', value: '2.5 s' });
    expect(byId['peak-1']).toMatchObject({ label: 'Peak CPU', value: '43.2 %' });
    expect(byId['peak-1']?.note).toBe('consul.server.cpu_pct {server=consul-server-2}');
    expect(byId['steady-1']?.value).toBe('7.2 %');
    expect(byId['peak-2']).toMatchObject({ label: 'Peak Memory', value: '1,160 MiB' });
    expect(byId['steady-2']?.value).toBe('—');
    expect(byId['peak-placement-rate']?.value).toBe('8/s');
    // 20 placements over the 4 s to the last: 5/s.
    expect(byId['mean-placement-rate']?.value).toBe('5/s');
    // Pending 0, 4, 12-4=8, 18-12=6, 20-18=2: peak 8, 2 at the end.
    expect(byId['peak-pending']?.value).toBe('8');
    expect(byId['peak-pending']?.note).toContain('2 at the end');
  });
  it('quotes a counter of CPU seconds in cores, steady from the end of the whole ramp', () => {
    const t: Timeline = {
      startedAt: '2026-02-01T00:00:00.000Z',
      finishedAt: null,
      durationMs: 400_000,
      bucketMs: 1000,
      steadyFrom: { phase: 'running', offsetMs: 300_000, reached: true },
      phases: [],
      series: [
        {
          id: '7',
          name: 'process_cpu_seconds_total',
          kind: 'counter',
          source: 'otlp',
          unit: 's',
          tags: { pod: 'istiod-0' },
          points: [],
          levels: { peak: 1.84, steady: 0.21, unit: 'cores' },
        },
      ],
    };
    const byId = Object.fromEntries(scaleUpNumbers(t).map((n) => [n.id, n]));
    expect(byId['peak-7']).toMatchObject({ label: 'Peak CPU', value: '1.84 cores' });
    expect(byId['steady-7']?.value).toBe('0.21 cores');
    expect(byId['steady-7']?.note).toContain('mean from 5 min 00 s (running at 100 %)');
  });
});

describe('joinMarkers', () => {
  const joined = phase('joined', [1], 1000, [220_000, 467_000, 533_000, 543_000]);
  it('labels 50/90/99/100 % and leaves off a label that would print over the next', () => {
    // On 15 min (900 s) the gap under 6 % is 54 s: 99 % is 10 s before 100 %.
    expect(joinMarkers(joined, [0, 900_000])).toEqual([
      { axis: 'x', at: 220_000, label: '50 %' },
      { axis: 'x', at: 467_000, label: '90 %' },
      { axis: 'x', at: 533_000 },
      { axis: 'x', at: 543_000, label: 'all joined' },
    ]);
    // Zoomed to 100 s, 10 s is room enough.
    expect(joinMarkers(joined, [500_000, 600_000])[2]).toEqual({
      axis: 'x',
      at: 533_000,
      label: '99 %',
    });
  });
  it('marks only what was reached, unlabelled without a domain', () => {
    const partial = phase('joined', [1], 1000, [1000, null, null, null]);
    expect(joinMarkers(partial, null)).toEqual([{ axis: 'x', at: 1000 }]);
  });
});

describe('a counter of CPU seconds', () => {
  type Series = Timeline['series'][number];
  const series = (over: Partial<Series>): Series => ({
    id: '7',
    name: 'process_cpu_seconds_total',
    kind: 'counter',
    source: 'otlp',
    unit: 's',
    tags: { pod: 'istiod-a' },
    points: [
      { offsetMs: 0, value: 3, min: 0.5, max: 1.5 },
      { offsetMs: 2000, value: 0.25, min: 0.1, max: 0.15 },
      { offsetMs: 4000, value: null, min: null, max: null },
    ],
    ...over,
  });

  it('is drawn as cores: CPU seconds in a bucket over its length in seconds', () => {
    const cpu = series({});
    const drawn = drawnSeries(cpu, [cpu], 2000);
    // 3 CPU s in a 2 s bucket: 1.5 cores; 0.25 CPU s in 2 s: 0.125 cores.
    expect(drawn.points.map((p) => p.value)).toEqual([1.5, 0.125, null]);
    // Increases per stored interval of unknown length: no band.
    expect(drawn.points.every((p) => p.min === null && p.max === null)).toBe(true);
    expect(drawn.unit).toBe('{core}');
    expect(axisTitle(drawn.unit)).toBe('CPU cores');
    expect([1.5, 1, 0.125].map((v) => formatValue(v, drawn.unit))).toEqual([
      '1.5 cores',
      '1 core',
      '0.13 cores',
    ]);
    // StatsD sends no unit: the name says seconds. Its values 2 s apart in 0.5 s buckets
    // accrued over 2 s each: 3 CPU s is 1.5 cores.
    const bare = series({ unit: null });
    expect(drawnSeries(bare, [bare], 500).points[0]?.value).toBe(1.5);
  });

  it('divides each increase by the time since the previous scrape, not the bucket', () => {
    // A collector scraping every 10 s into 1 s buckets (the demo's OTLP exporter): 5 CPU s
    // a scrape is half a core; the first scrape's interval is taken as the next one's; an
    // empty bucket stays empty, and the scrape after a missed one covers 20 s.
    const scraped = series({
      points: [
        { offsetMs: 0, value: 5, min: 5, max: 5 },
        { offsetMs: 5000, value: null, min: null, max: null },
        { offsetMs: 10_000, value: 5, min: 5, max: 5 },
        { offsetMs: 20_000, value: 4, min: 4, max: 4 },
        { offsetMs: 40_000, value: 10, min: 10, max: 10 },
      ],
    });
    expect(drawnSeries(scraped, [scraped], 1000).points.map((p) => p.value)).toEqual([
      0.5,
      null,
      0.5,
      0.4,
      0.5,
    ]);
  });

  it('leaves other series as they are', () => {
    expect(isCpuSecondsCounter(series({ kind: 'gauge' }))).toBe(false);
    expect(isCpuSecondsCounter(series({ name: 'pilot_xds_pushes', unit: null }))).toBe(false);
    expect(isCpuSecondsCounter(series({ name: 'cpu_pct', unit: '%' }))).toBe(false);
    const pushes = series({ name: 'pilot_xds_pushes', unit: null });
    const drawn = drawnSeries(pushes, [pushes], 2000);
    expect(drawn.points).toEqual(pushes.points);
    expect(drawn.unit).toBeNull();
  });
});
