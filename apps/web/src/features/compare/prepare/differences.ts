// What differs between the compared runs beyond the mesh itself: a comparison of different
// scenarios, platforms or sizes is allowed, but must say so.
import type { Topology } from '@meshbench/schema';
import { formatCount } from '../../../charts/prepare/format.ts';

export interface ComparedRunFacts {
  benchmark: string;
  scenario: string;
  platform: string | null;
  topology: Topology;
}

export interface Difference {
  field: string;
  /** "178,000 vs 2,000 proxies", "scenario: endpoint-propagation vs route-update". */
  text: string;
}

const UNKNOWN = 'unknown';

function allSame(values: (string | number | null | undefined)[]): boolean {
  return values.every((v) => v === values[0]);
}

const TOPOLOGY: { field: keyof Topology; unit: string }[] = [
  { field: 'nodes', unit: 'nodes' },
  { field: 'services', unit: 'services' },
  { field: 'instances', unit: 'instances' },
  { field: 'servers', unit: 'control-plane servers' },
];

/**
 * Runs in the order shown (the baseline first). `changes` are the compared changes, one per
 * run (null where a run has none): their expected proxy counts and ids are compared too.
 */
export function whatDiffers(
  runs: ComparedRunFacts[],
  changes: ({ id: string; expected: number | null } | null)[] = [],
): Difference[] {
  const out: Difference[] = [];
  for (const field of ['benchmark', 'scenario', 'platform'] as const) {
    const values = runs.map((r) => r[field]);
    if (!allSame(values)) {
      out.push({ field, text: `${field}: ${values.map((v) => v ?? UNKNOWN).join(' vs ')}` });
    }
  }
  const present = changes.filter((c) => c !== null);
  if (changes.length >= 2 && present.length > 0) {
    const expected = changes.map((c) => c?.expected);
    if (!allSame(expected)) {
      out.push({
        field: 'proxies',
        text: `${expected.map((v) => (v === null || v === undefined ? UNKNOWN : formatCount(v))).join(' vs ')} proxies`,
      });
    }
    const ids = changes.map((c) => c?.id);
    if (!allSame(ids)) {
      out.push({
        field: 'change',
        text: `change: ${ids.map((v) => v ?? 'none').join(' vs ')}`,
      });
    }
  }
  for (const { field, unit } of TOPOLOGY) {
    const values = runs.map((r) => r.topology[field]);
    if (!allSame(values)) {
      out.push({
        field,
        text: `${values.map((v) => (v === undefined ? UNKNOWN : formatCount(v))).join(' vs ')} ${unit}`,
      });
    }
  }
  return out;
}
