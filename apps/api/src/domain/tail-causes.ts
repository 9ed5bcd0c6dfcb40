// Why the tail of a change was slow: one cause per tail proxy, and the causes table with
// nearest-rank percentiles. Pure: the caller loads the tail and the incidents.

import type { PercentileValue } from '@meshbench/schema';
import {
  NEVER_CONVERGED_CAUSE,
  TAIL_CAUSE_PERCENTILES,
  UNEXPLAINED_CAUSE,
} from '@meshbench/schema';
import { nearestRank } from './nearest-rank.ts';

/**
 * The rules (the tail route's OpenAPI description says the same):
 *
 * - The tail is the proxies whose FIRST application of the change is slower than the
 *   threshold (latency = observation.at - change.at > threshold, strictly); later reports
 *   of a proxy are repeats and never count. The threshold is thresholdMs (default 1000 ms)
 *   or the change's nearest-rank Pxx (thresholdP), so "slower than P99" excludes P99 itself.
 * - Each tail proxy gets exactly one cause, the first that applies of:
 *   1. the `cause` the runner sent on that first-application observation, unless empty;
 *   2. an incident that overlaps the interval from the change to the observation, i.e.
 *      incident.from <= observation.at and (incident.to is null or incident.to >= change.at)
 *      (both ends inclusive). Any incident kind counts and is named as sent. An incident
 *      that names a proxy is about that proxy only (its node is not consulted); one that
 *      names only a node is about every proxy on that node. A proxy-level incident wins
 *      over a node-level one; among several of the same level, the one overlapping the
 *      interval longest (an open incident runs to the observation), then the earliest
 *      `from`, then the kind in alphabetical order;
 *   3. "unexplained".
 * - The expected proxies that never applied the change (expected - count, when the change
 *   declares `expected`) are one more row, "never-converged", with no latency and so no
 *   percentiles.
 * - share = count / (tailCount + neverConverged); percentiles per cause are nearest-rank
 *   P50, P90, P99 of that cause's latencies; causes are sorted by count, largest first
 *   (then by name); the slowest list is by latency, slowest first (then by proxy).
 */

/** A proxy's first application of the change, already known to be over the threshold. */
export interface TailObservation {
  proxy: string;
  node: string | null;
  /** Epoch microseconds. */
  atUs: number;
  /** The cause the runner sent, if any. */
  cause: string | null;
  /** Its latency when not atUs - the change's (corrected for its node's clock), us. */
  latencyUs?: number;
}

export interface TailIncident {
  kind: string;
  node: string | null;
  proxy: string | null;
  /** Epoch microseconds; toUs null while the incident is open. */
  fromUs: number;
  toUs: number | null;
}

export interface ExplainedObservation extends TailObservation {
  latencyUs: number;
  cause: string;
  /** The incident the cause was taken from; null for a runner's cause or unexplained. */
  incident: TailIncident | null;
}

/** How long the incident overlaps [changeAtUs, atUs], or null when it does not touch it. */
export function overlapUs(incident: TailIncident, changeAtUs: number, atUs: number): number | null {
  if (incident.fromUs > atUs) return null;
  if (incident.toUs !== null && incident.toUs < changeAtUs) return null;
  const end = incident.toUs === null ? atUs : Math.min(atUs, incident.toUs);
  return end - Math.max(changeAtUs, incident.fromUs);
}

function best(
  candidates: readonly TailIncident[] | undefined,
  changeAtUs: number,
  atUs: number,
): TailIncident | null {
  let chosen: TailIncident | null = null;
  let chosenOverlap = 0;
  for (const incident of candidates ?? []) {
    const overlap = overlapUs(incident, changeAtUs, atUs);
    if (overlap === null) continue;
    const better =
      chosen === null ||
      overlap > chosenOverlap ||
      (overlap === chosenOverlap &&
        (incident.fromUs < chosen.fromUs ||
          (incident.fromUs === chosen.fromUs && incident.kind < chosen.kind)));
    if (better) {
      chosen = incident;
      chosenOverlap = overlap;
    }
  }
  return chosen;
}

function groupBy(
  incidents: readonly TailIncident[],
  key: (i: TailIncident) => string | null,
): Map<string, TailIncident[]> {
  const groups = new Map<string, TailIncident[]>();
  for (const incident of incidents) {
    const k = key(incident);
    if (k === null) continue;
    const group = groups.get(k);
    if (group) group.push(incident);
    else groups.set(k, [incident]);
  }
  return groups;
}

/** One cause for each tail observation, by the rules above. */
export function assignCauses(
  tail: readonly TailObservation[],
  incidents: readonly TailIncident[],
  changeAtUs: number,
): ExplainedObservation[] {
  const byProxy = groupBy(incidents, (i) => i.proxy);
  const byNode = groupBy(incidents, (i) => (i.proxy === null ? i.node : null));
  return tail.map((o) => {
    const latencyUs = o.latencyUs ?? o.atUs - changeAtUs;
    if (o.cause !== null && o.cause !== '') {
      return { ...o, latencyUs, cause: o.cause, incident: null };
    }
    const incident =
      best(byProxy.get(o.proxy), changeAtUs, o.atUs) ??
      (o.node === null ? null : best(byNode.get(o.node), changeAtUs, o.atUs));
    return { ...o, latencyUs, cause: incident ? incident.kind : UNEXPLAINED_CAUSE, incident };
  });
}

export interface CauseRow {
  cause: string;
  count: number;
  share: number;
  percentiles: PercentileValue[];
}

export interface TailBreakdown {
  tailCount: number;
  neverConverged: number;
  causes: CauseRow[];
  slowest: ExplainedObservation[];
}

/** The causes table and the `limit` slowest tail proxies. */
export function tailBreakdown(
  explained: readonly ExplainedObservation[],
  neverConverged: number,
  limit: number,
): TailBreakdown {
  const total = explained.length + neverConverged;
  const latencies = new Map<string, number[]>();
  for (const o of explained) {
    const list = latencies.get(o.cause);
    if (list) list.push(o.latencyUs);
    else latencies.set(o.cause, [o.latencyUs]);
  }
  const causes: CauseRow[] = [...latencies].map(([cause, list]) => {
    const sorted = Float64Array.from(list).sort();
    return {
      cause,
      count: sorted.length,
      share: sorted.length / total,
      percentiles: TAIL_CAUSE_PERCENTILES.map((p) => ({
        p,
        ms: (sorted[nearestRank(p, sorted.length) - 1] as number) / 1000,
        exact: true,
        method: 'raw' as const,
      })),
    };
  });
  if (neverConverged > 0) {
    causes.push({
      cause: NEVER_CONVERGED_CAUSE,
      count: neverConverged,
      share: neverConverged / total,
      percentiles: [],
    });
  }
  causes.sort((a, b) => b.count - a.count || (a.cause < b.cause ? -1 : a.cause > b.cause ? 1 : 0));
  const slowest = [...explained]
    .sort(
      (a, b) => b.latencyUs - a.latencyUs || (a.proxy < b.proxy ? -1 : a.proxy > b.proxy ? 1 : 0),
    )
    .slice(0, limit);
  return { tailCount: explained.length, neverConverged, causes, slowest };
}
