// Whether runs can be held against each other at all. A difference between two runs means
// something only when they ran the same thing under the same conditions: this lists what
// breaks that (topology, a pinned mesh version, a load point short of its rate, a saturated
// load generator, percentiles exact in one run and estimated in the other), each with the
// numbers, for the gate's "not comparable" verdict and the compare page's and report's warnings.
import type { ComparabilityPin, ComparabilityWarning, PercentileValue } from '@meshbench/schema';

/** A load point achieving less than this share of its target rate is short of it (> 5 % below). */
export const RPS_SHORTFALL_SHARE = 0.95;
/** A client side whose CPU peak reaches this share of the cores it had is saturated. */
export const SATURATION_SHARE = 0.95;

export interface LoadPointFacts {
  mode: string;
  connections: number | null;
  targetRps: number | null;
  achievedRps: number | null;
  /** The client side's CPU peak as the source reports it (Istio's CSV: the client's proxy). */
  clientCpuCoresMax: number | null;
  labels: Record<string, string>;
  percentiles: PercentileValue[];
}

export interface RunFacts {
  id: string;
  /** Where a number was seen, as a reason says it: "here", "in the baseline", "in run 1a2b3c4d". */
  where: string;
  meshVersion: string | null;
  topology: { nodes?: number | undefined; instances?: number | undefined } | null;
  labels: Record<string, string>;
  loadResults: LoadPointFacts[];
}

/** The points a reason lists before "and N more". */
const LISTED = 3;

const num = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: 2 });
const pctOf = (v: number) => `${v.toLocaleString('en-US', { maximumFractionDigits: 1 })} %`;

function pointName(p: LoadPointFacts): string {
  const parts = [p.mode];
  if (p.connections !== null) parts.push(`${num(p.connections)} connections`);
  if (p.targetRps !== null) parts.push(`${num(p.targetRps)} RPS target`);
  return parts.join(', ');
}

const pointKey = (p: LoadPointFacts) => JSON.stringify([p.mode, p.connections, p.targetRps]);

function listed(items: string[]): string {
  const shown = items.slice(0, LISTED).join('; ');
  const more = items.length - LISTED;
  return more > 0 ? `${shown}; and ${more} more load point${more === 1 ? '' : 's'}` : shown;
}

/** Load points that achieved less than 95 % of their target rate. */
function rpsShortfall(run: RunFacts): ComparabilityWarning | null {
  const short = run.loadResults.filter(
    (p) =>
      p.targetRps !== null &&
      p.targetRps > 0 &&
      p.achievedRps !== null &&
      // achieved < 95 % of target, without 0.95's binary rounding.
      p.achievedRps * 100 < p.targetRps * (RPS_SHORTFALL_SHARE * 100),
  );
  if (short.length === 0) return null;
  const items = short.map((p) => {
    const target = p.targetRps as number;
    const achieved = p.achievedRps as number;
    return `${num(achieved)} of ${num(target)} RPS (${pctOf((1 - achieved / target) * 100)} below) at ${pointName(p)}`;
  });
  return {
    kind: 'rps-shortfall',
    runIds: [run.id],
    reason: `achieved RPS below target by more than ${pctOf((1 - RPS_SHORTFALL_SHARE) * 100)} ${run.where}: ${listed(items)}`,
  };
}

/**
 * Load points whose generator was saturated: the point or its run labelled
 * generator.saturated=true, or the client side's CPU peak at 95 % or more of the cores the
 * run says it had (generator.cores).
 */
function saturation(run: RunFacts): ComparabilityWarning | null {
  const items: string[] = [];
  for (const p of run.loadResults) {
    const labels = { ...run.labels, ...p.labels };
    if (labels['generator.saturated']?.trim().toLowerCase() === 'true') {
      items.push(`generator.saturated=true at ${pointName(p)}`);
      continue;
    }
    const cores = Number(labels['generator.cores']);
    if (
      labels['generator.cores'] !== undefined &&
      Number.isFinite(cores) &&
      cores > 0 &&
      p.clientCpuCoresMax !== null &&
      p.clientCpuCoresMax >= cores * SATURATION_SHARE
    ) {
      items.push(
        `client CPU peak ${num(p.clientCpuCoresMax)} of ${num(cores)} cores (${pctOf((p.clientCpuCoresMax / cores) * 100)}) at ${pointName(p)}`,
      );
    }
  }
  if (items.length === 0) return null;
  return {
    kind: 'generator-saturated',
    runIds: [run.id],
    reason: `load generator saturated ${run.where}: ${listed(items)}`,
  };
}

function howEstimated(p: PercentileValue): string {
  const method = p.method ?? 'reported';
  if (p.relativeError !== undefined) return `${method}, ± ${pctOf(p.relativeError * 100)}`;
  if (p.clockErrorMs !== undefined) return `${method}, ± ${num(p.clockErrorMs)} ms`;
  if (p.lower !== undefined && p.upper !== undefined)
    return `${method}, between ${p.lower === null ? '-∞' : num(p.lower)} and ${p.upper === null ? '∞' : `${num(p.upper)} ms`}`;
  return `${method}, no bound known`;
}

const describe = (p: PercentileValue) =>
  p.exact
    ? `exact (${num(p.ms)} ms, nearest rank over raw values)`
    : `estimated (${num(p.ms)} ms, ${howEstimated(p)})`;

/** Percentiles exact at a load point in one run and estimated at the same point in the other. */
function exactness(base: RunFacts, other: RunFacts): ComparabilityWarning | null {
  const basePoints = new Map(base.loadResults.map((p) => [pointKey(p), p]));
  const items: string[] = [];
  for (const p of other.loadResults) {
    const b = basePoints.get(pointKey(p));
    if (!b) continue;
    for (const x of p.percentiles) {
      const y = b.percentiles.find((q) => q.p === x.p);
      // A percentile that does not say is as its source reported it: estimated.
      if (!y || (x.exact ?? false) === (y.exact ?? false)) continue;
      items.push(
        `P${x.p} at ${pointName(p)} is ${describe(x)} ${other.where}, ${describe(y)} ${base.where}`,
      );
      break;
    }
  }
  if (items.length === 0) return null;
  return {
    kind: 'percentile-exactness',
    runIds: [other.id, base.id],
    reason: `percentiles of different exactness: ${listed(items)}`,
  };
}

function topology(base: RunFacts, other: RunFacts): ComparabilityWarning | null {
  for (const key of ['nodes', 'instances'] as const) {
    const a = other.topology?.[key];
    const b = base.topology?.[key];
    if (a !== undefined && b !== undefined && a !== b)
      return {
        kind: 'topology',
        runIds: [other.id, base.id],
        reason: `different topology: ${key} ${num(a)} ${other.where}, ${num(b)} ${base.where}`,
      };
  }
  return null;
}

function meshVersion(base: RunFacts, other: RunFacts): ComparabilityWarning | null {
  if (other.meshVersion === base.meshVersion) return null;
  const v = (x: string | null) => x ?? 'none stated';
  return {
    kind: 'mesh-version',
    runIds: [other.id, base.id],
    reason: `different mesh version, pinned by same:mesh.version: ${v(other.meshVersion)} ${other.where}, ${v(base.meshVersion)} ${base.where}`,
  };
}

/**
 * What keeps the runs from being compared: the first run is the baseline, each other run is
 * held against it (topology, pinned mesh version, percentile exactness), and each run on its
 * own (rate shortfall, saturation). Empty: comparable.
 */
export function comparabilityOf(
  runs: RunFacts[],
  same: readonly ComparabilityPin[] = [],
): ComparabilityWarning[] {
  const [base, ...others] = runs;
  if (!base) return [];
  const out: (ComparabilityWarning | null)[] = [];
  for (const other of others) {
    out.push(topology(base, other));
    if (same.includes('mesh.version')) out.push(meshVersion(base, other));
    out.push(exactness(base, other));
  }
  for (const run of runs) out.push(rpsShortfall(run), saturation(run));
  return out.filter((w): w is ComparabilityWarning => w !== null);
}
