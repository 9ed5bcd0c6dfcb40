// The numbers a scale-up benchmark quotes, from a run's timeline: when the nodes joined
// (time to 50/90/99/100 %), control-plane CPU and memory at their peak and once steady,
// scheduled against running (the pending count) and the placement rate per second; and
// the names, units and groups the timeline draws its series under.
import type { Timeline } from '@meshbench/schema';
import { formatCount } from './format.ts';
import {
  asCores,
  CORES,
  formatOffset,
  formatRate,
  formatValue,
  isCpuSecondsCounter,
  meanRate,
} from './timeline.ts';

type Phase = Timeline['phases'][number];
type Series = Timeline['series'][number];

const NODE_PHASE = /join|node|agent|client/i;
const SCHEDULED_PHASE = /schedul|place|alloc/i;
const RUNNING_PHASE = /running|start/i;

/** The phases a scale-up is read by, each the first (in the API's order) whose name fits. */
export function scaleUpPhases(phases: readonly Phase[]): {
  nodes: Phase | null;
  scheduled: Phase | null;
  running: Phase | null;
} {
  const find = (re: RegExp, not?: RegExp) =>
    phases.find((p) => re.test(p.phase) && !not?.test(p.phase)) ?? null;
  return {
    nodes: find(NODE_PHASE),
    // "allocations running" is a running phase, not a scheduled one.
    scheduled: find(SCHEDULED_PHASE, RUNNING_PHASE),
    running: find(RUNNING_PHASE),
  };
}

/**
 * Pending = scheduled minus running, bucket by bucket (both phases are cumulative counts
 * on the same buckets); null without both phases.
 */
export function pendingPoints(
  scheduled: Phase | null,
  running: Phase | null,
): { offsetMs: number; count: number; ratePerSec: number }[] | null {
  if (!scheduled || !running) return null;
  const runningAt = new Map(running.points.map((p) => [p.offsetMs, p.count]));
  let lastRunning = 0;
  return scheduled.points.map((p) => {
    lastRunning = runningAt.get(p.offsetMs) ?? lastRunning;
    return { offsetMs: p.offsetMs, count: p.count - lastRunning, ratePerSec: 0 };
  });
}

/** A phase's arrivals per second, bucket by bucket, as a series the timeline can draw. */
export function ratePoints(phase: Phase): { offsetMs: number; value: number }[] {
  return phase.points.map((p) => ({ offsetMs: p.offsetMs, value: p.ratePerSec }));
}

/**
 * The unit a series is drawn in: its own, else one its name says (StatsD sends none):
 * `_pct`/`_percent` %, `_mb`/`_mib` MiB, `_bytes` By, `_ms` ms, `_seconds` s.
 */
export function seriesUnit(name: string, unit: string | null): string | null {
  if (unit) return unit;
  const n = name.toLowerCase();
  if (/(^|[._])(pct|percent)$/.test(n)) return '%';
  if (/(^|[._])(mb|mib)$/.test(n)) return 'MiB';
  if (/(^|[._])bytes$/.test(n)) return 'By';
  if (/(^|[._])ms$/.test(n)) return 'ms';
  if (/(^|[._])(s|seconds)$/.test(n)) return 's';
  return null;
}

/**
 * A timeline series as drawn: its label, its unit, and its points. A counter of CPU seconds
 * becomes a rate in cores (increase / bucket length in s: 3 CPU s in a 2 s bucket is 1.5
 * cores). Its band goes: a counter's min and max are increases per stored interval, whose
 * length the timeline does not give, so they have no rate to draw.
 */
export function drawnSeries(s: Series, all: readonly Series[], bucketMs: number) {
  const base = { ...s, metric: s.name, name: seriesLabel(s, all) };
  if (!isCpuSecondsCounter(s) || !(bucketMs > 0))
    return { ...base, unit: seriesUnit(s.name, s.unit) };
  return { ...base, unit: CORES, points: asCores(s.points, bucketMs) };
}

/** What a y axis in `unit` counts in, written along it: "%", "MiB", "bytes", "streams". */
export function axisTitle(unit: string | null): string {
  if (unit === CORES) return 'CPU cores';
  if (!unit || unit === '1') return 'value';
  if (unit === 'By') return 'bytes';
  if (unit === '/s') return 'per second';
  const word = /^\{(.*)\}$/.exec(unit);
  return word ? `${word[1]}s` : unit;
}

/** Tags that say which instance wrote a series, shown even when only one instance did. */
const INSTANCE_TAGS = /^(server|host|hostname|instance|pod|node|replica|service\.instance\.id)$/i;
const HIDDEN_TAGS = /^(run|meshbench\.run|otel\.scope.*)$/i;

/**
 * A series' name with the tags that tell it apart: those that differ between series of
 * the same name, and those naming the instance (server, host, pod...) so that one of five
 * servers never reads as the whole control plane. "consul.server.cpu_pct {server=consul-server-1}".
 */
export function seriesLabel(
  s: Pick<Series, 'name' | 'tags'>,
  all: readonly Pick<Series, 'name' | 'tags'>[],
): string {
  const same = all.filter((x) => x.name === s.name);
  const shown = Object.entries(s.tags).filter(
    ([k, v]) =>
      !HIDDEN_TAGS.test(k) && (INSTANCE_TAGS.test(k) || same.some((x) => x.tags[k] !== v)),
  );
  if (shown.length === 0) return s.name;
  return `${s.name} {${shown.map(([k, v]) => `${k}=${v}`).join(', ')}}`;
}

/**
 * The picked series in charts: series of one name and unit (the same metric from several
 * servers) share a chart, in the order they were first picked.
 */
export function seriesGroups<T extends Pick<Series, 'id' | 'name' | 'unit'> & { metric?: string }>(
  picked: readonly T[],
): T[][] {
  const groups = new Map<string, T[]>();
  for (const s of picked) {
    // `metric`: the series' own name, when `name` is a label with its tags.
    const metric = s.metric ?? s.name;
    const k = `${metric}\u0000${seriesUnit(metric, s.unit) ?? ''}`;
    const g = groups.get(k);
    if (g) g.push(s);
    else groups.set(k, [s]);
  }
  return [...groups.values()];
}

/** One line of the numbers table: what, its value as read, and where it comes from. */
export interface ScaleUpNumber {
  id: string;
  label: string;
  value: string;
  note?: string;
}

const CPU = /cpu/i;
const MEMORY = /mem|rss|heap/i;

/**
 * The numbers a scale-up benchmark quotes, in reading order: time to 50/90/99/100 % of
 * the nodes, peak and steady CPU and memory of each control-plane series (steady: the
 * API's mean after the whole ramp, every phase at 100 %; CPU seconds in cores), peak and mean
 * placement rate, peak pending.
 */
export function scaleUpNumbers(t: Timeline): ScaleUpNumber[] {
  const out: ScaleUpNumber[] = [];
  const { nodes, scheduled, running } = scaleUpPhases(t.phases);
  if (nodes) {
    for (const pc of [50, 90, 99, 100]) {
      const at = nodes.timeTo.find((x) => x.percent === pc)?.offsetMs ?? null;
      out.push({
        id: `time-to-${pc}`,
        label: pc === 100 ? `All ${nodes.phase} (100 %)` : `${pc} % ${nodes.phase}`,
        value: formatOffset(at),
        note: `of ${formatCount(nodes.total)}`,
      });
    }
  }
  const steadyNote = t.steadyFrom
    ? `mean from ${formatOffset(t.steadyFrom.offsetMs)} (${
        t.steadyFrom.reached === false
          ? `last ${t.steadyFrom.phase}, short of 100 %`
          : t.steadyFrom.reached
            ? `${t.steadyFrom.phase} at 100 %`
            : `last ${t.steadyFrom.phase}`
      })`
    : 'no lifecycle phase';
  for (const [what, re] of [
    ['CPU', CPU],
    ['Memory', MEMORY],
  ] as const) {
    for (const s of t.series.filter((x) => x.levels && re.test(x.name))) {
      // A counter of CPU seconds: its levels are in cores (the API's rates), as it is drawn.
      const unit = s.levels?.unit === 'cores' ? CORES : seriesUnit(s.name, s.unit);
      const name = seriesLabel(s, t.series);
      out.push({
        id: `peak-${s.id}`,
        label: `Peak ${what}`,
        value: formatValue(s.levels?.peak ?? null, unit),
        note: name,
      });
      out.push({
        id: `steady-${s.id}`,
        label: `Steady ${what}`,
        value: formatValue(s.levels?.steady ?? null, unit),
        note: `${name}, ${steadyNote}`,
      });
    }
  }
  if (scheduled) {
    const rates = scheduled.points.map((p) => p.ratePerSec);
    const t100 = scheduled.timeTo.find((x) => x.percent === 100)?.offsetMs ?? null;
    out.push({
      id: 'peak-placement-rate',
      label: 'Peak placement rate',
      value: formatRate(rates.length > 0 ? Math.max(...rates) : null),
      note: `${scheduled.phase} per second, ${formatOffset(t.bucketMs)} buckets`,
    });
    // As C2M's "2 million in 22 min 14 s, nearly 1,500 per second": over the run until the last.
    out.push({
      id: 'mean-placement-rate',
      label: 'Mean placement rate',
      value: formatRate(meanRate(scheduled.count, t100, scheduled.points, t.bucketMs)),
      note: `${formatCount(scheduled.count)} ${scheduled.phase} over the time to the last`,
    });
  }
  const pending = pendingPoints(scheduled, running);
  if (pending && scheduled && running) {
    const peak = pending.reduce((m, p) => Math.max(m, p.count), 0);
    out.push({
      id: 'peak-pending',
      label: 'Peak pending',
      value: formatCount(peak),
      note: `${scheduled.phase} − ${running.phase}; ${formatCount(pending.at(-1)?.count ?? 0)} at the end`,
    });
  }
  return out;
}

/**
 * Marks at the times the node phase reached 50/90/99/100 %. Labelled when `domain` (the
 * shown span) is given: "50 %", ..., "all joined"; a label closer than 6 % of the span to
 * the next labelled mark is left off (99 % just before 100 % would print over it).
 */
export function joinMarkers(
  nodes: Pick<Phase, 'phase' | 'timeTo'> | null,
  domain: [number, number] | null,
): { axis: 'x'; at: number; label?: string }[] {
  const reached = (nodes?.timeTo ?? []).filter(
    (x): x is { percent: number; offsetMs: number } => x.offsetMs !== null,
  );
  const minGap = domain ? (domain[1] - domain[0]) * 0.06 : 0;
  return reached.map((x, i) => {
    const next = reached[i + 1];
    const crowded = next !== undefined && next.offsetMs - x.offsetMs < minGap;
    const label = x.percent === 100 ? `all ${nodes?.phase}` : `${x.percent} %`;
    return domain && !crowded
      ? { axis: 'x', at: x.offsetMs, label }
      : { axis: 'x', at: x.offsetMs };
  });
}
