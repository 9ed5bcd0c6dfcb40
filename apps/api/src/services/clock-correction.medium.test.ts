// The corrected summary computed from a batch's own first applications (the fast path after a
// write) against the same summary computed by reading the stored first applications again:
// the same rows kept, on both databases; and the node clocks built once per correction pass.

import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { FirstApplications, type ObservedStage } from '../domain/first-applications.ts';
import { clockRepository } from '../repositories/clock.repository.ts';
import { propagationRepository } from '../repositories/propagation.repository.ts';
import { backends, type MediumContext, newRun, postEvents, useServices } from '../test/medium.ts';
import { clockCorrectionService } from './clock-correction.service.ts';

const T0_US = Date.parse('2026-02-01T10:00:00.000Z') * 1000;
const iso = (us: number) => {
  const ms = Math.floor(us / 1000);
  return `${new Date(ms).toISOString().slice(0, 23)}${String(us - ms * 1000).padStart(3, '0')}Z`;
};

/** A seeded generator (mulberry32): the same events on every run of the test. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Observation {
  proxy: string;
  node: string | undefined;
  atUs: number;
  stage: string;
}

/**
 * Clock reports for 40 of 50 nodes (drifting, some with one report), and observations over
 * two stages of 400 proxies: some before the change, repeats later and earlier than a
 * proxy's first report, proxies naming no node, nodes without reports. A proxy keeps one
 * node, so the node of its first application is never a tie between two.
 */
function events(seed: number, proxies: number) {
  const next = random(seed);
  const clocks = [];
  for (let n = 0; n < 40; n++) {
    const offsetMs = (next() - 0.5) * 400;
    clocks.push({
      type: 'clock',
      node: `n-${n}`,
      at: iso(T0_US - 60e6),
      offsetMs,
      errorMs: 0.1 + next(),
    });
    if (n % 4 !== 0)
      clocks.push({
        type: 'clock',
        node: `n-${n}`,
        at: iso(T0_US + 30e6),
        offsetMs: offsetMs + (next() - 0.5) * 4,
        errorMs: 0.1 + next(),
      });
  }
  const observations: Observation[] = [];
  for (let p = 0; p < proxies; p++) {
    const node = p % 37 === 0 ? undefined : `n-${p % 50}`;
    const latencyUs = Math.round((next() - 0.05) * 2e6);
    for (const stage of ['received', 'applied']) {
      const atUs = T0_US + latencyUs + (stage === 'applied' ? 5000 : 0);
      observations.push({ proxy: `p-${p}`, node, atUs, stage });
      if (next() < 0.1)
        observations.push({
          proxy: `p-${p}`,
          node,
          atUs: atUs + Math.round((next() - 0.3) * 1e6),
          stage,
        });
    }
  }
  return { clocks, observations };
}

const line = (o: Observation) => ({
  type: 'observation',
  change: 'c1',
  proxy: o.proxy,
  ...(o.node === undefined ? {} : { node: o.node }),
  at: iso(o.atUs),
  stage: o.stage,
});

/** What a batch of these observations holds, per stage, as the ingest service tells of it. */
function observed(observations: readonly Observation[]): ObservedStage[] {
  const stages = new Map<string, FirstApplications>();
  for (const o of observations) {
    let apps = stages.get(o.stage);
    if (!apps) {
      apps = new FirstApplications();
      stages.set(o.stage, apps);
    }
    apps.add(o.proxy, o.atUs, o.node ?? null);
  }
  return [...stages].map(([stage, apps]) => ({ changeId: 'c1', stage, apps }));
}

/** A correction service on the suite's database that counts what its passes read. */
function countingCorrections(ctx: MediumContext, afterFirst?: () => Promise<unknown>) {
  const reads = { firstApplications: 0, reports: 0 };
  const clocks = clockRepository(ctx.database);
  let corrections = 0;
  const counted: typeof clocks = {
    ...clocks,
    inCorrection: async (runId, changeId, stage, work) => {
      const out = await clocks.inCorrection(runId, changeId, stage, (store) =>
        work({
          ...store,
          firstApplications: () => {
            reads.firstApplications++;
            return store.firstApplications();
          },
          reports: () => {
            reads.reports++;
            return store.reports();
          },
        }),
      );
      if (corrections++ === 0) await afterFirst?.();
      return out;
    },
  };
  const service = clockCorrectionService({
    propagation: propagationRepository(ctx.database),
    clocks: counted,
  });
  return { service, reads };
}

/** The run's kept corrected summaries and their blocks, as stored. */
async function keptCorrected(ctx: MediumContext, runId: string) {
  const summaries = await ctx.database.db.execute(sql`
    select stage, count, observations, repeats, before_change, min_us, max_us, sum_us,
      block_size, encode(block_firsts, 'hex') as firsts, clock_max_error_us, clock_nodes,
      uncorrected_nodes
    from change_summaries where run_id = ${runId} and clock = 'corrected' order by stage`);
  const blocks = await ctx.database.db.execute(sql`
    select stage, block_no, encode(latencies, 'hex') as latencies from latency_blocks
    where run_id = ${runId} and clock = 'corrected' order by stage, block_no`);
  const rows = (r: unknown) =>
    (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];
  return { summaries: rows(summaries), blocks: rows(blocks) };
}

/** Marks the run's corrected summaries stale, as a batch with clock reports does. */
const makeStale = (ctx: MediumContext, runId: string) =>
  ctx.database.db.execute(sql`update change_summaries set clock_input_batch = null
    where run_id = ${runId} and clock = 'corrected'`);

describe.each(backends)('clock correction passes on $name', (backend) => {
  const ctx = useServices(backend);
  const change = {
    type: 'change',
    id: 'c1',
    kind: 'endpoint',
    target: 'hey',
    action: 'delete',
    at: iso(T0_US),
  };

  it("keeps the same corrected summary from a batch's own first applications as from reading them again", async () => {
    for (const seed of [1, 2, 3]) {
      const run = await newRun(ctx.services);
      const { clocks, observations } = events(seed, 1500);
      const accepted = 1 + clocks.length + observations.length;
      expect(
        await postEvents(ctx.services, run.id, [change, ...clocks, ...observations.map(line)]),
      ).toEqual({ accepted, duplicate: false });
      await ctx.services.corrections.correctedRead(run.id, 'c1');

      const { service, reads } = countingCorrections(ctx);
      await makeStale(ctx, run.id);
      expect(await service.warmCorrected(run.id)).toBe(2);
      // Read again: each stage's first applications; the reports once for both stages.
      expect(reads).toEqual({ firstApplications: 2, reports: 1 });
      const reread = await keptCorrected(ctx, run.id);
      expect(reread.summaries).toHaveLength(2);
      expect(reread.blocks.length).toBeGreaterThanOrEqual(4);

      await makeStale(ctx, run.id);
      service.correctAfterWrite(run.id, observed(observations));
      await service.correctedRead(run.id, 'c1', 'applied');
      // From the batch: no first application read; the reports once for both stages.
      expect(reads).toEqual({ firstApplications: 2, reports: 2 });
      expect(await keptCorrected(ctx, run.id)).toEqual(reread);
    }
  });

  it('reads the first applications again when another batch observed the stage', async () => {
    const run = await newRun(ctx.services);
    const { clocks, observations } = events(7, 300);
    const half = observations.length / 2;
    await postEvents(ctx.services, run.id, [
      change,
      ...clocks,
      ...observations.slice(0, half).map(line),
    ]);
    await postEvents(ctx.services, run.id, observations.slice(half).map(line));
    await ctx.services.corrections.correctedRead(run.id, 'c1');
    const kept = await keptCorrected(ctx, run.id);

    const { service, reads } = countingCorrections(ctx);
    await makeStale(ctx, run.id);
    // Told of the second batch only: it holds neither stage whole.
    service.correctAfterWrite(run.id, observed(observations.slice(half)));
    await service.correctedRead(run.id, 'c1', 'applied');
    expect(reads).toEqual({ firstApplications: 2, reports: 1 });
    expect(await keptCorrected(ctx, run.id)).toEqual(kept);
  });

  it('builds the node clocks again when reports come between two stages of a pass', async () => {
    const run = await newRun(ctx.services);
    const { clocks, observations } = events(11, 200);
    await postEvents(ctx.services, run.id, [change, ...clocks, ...observations.map(line)]);
    await ctx.services.corrections.correctedRead(run.id, 'c1');
    const before = await keptCorrected(ctx, run.id);
    // After the pass's first stage, a batch with the first report of n-45 (which has proxies).
    const more = { type: 'clock', node: 'n-45', at: iso(T0_US), offsetMs: 250, errorMs: 3 };
    const { service, reads } = countingCorrections(ctx, () =>
      postEvents(ctx.services, run.id, [more]),
    );
    await makeStale(ctx, run.id);
    expect(await service.warmCorrected(run.id)).toBe(2);
    expect(reads).toEqual({ firstApplications: 2, reports: 2 });
    // The second stage corrected with the new report: fresh, so no later pass corrects it again
    // (the first, stale, is corrected again after the batch, by the service that stored it).
    await ctx.services.corrections.correctedRead(run.id, 'c1', 'received');
    await ctx.services.corrections.correctedRead(run.id, 'c1', 'applied');
    const nodes = (await keptCorrected(ctx, run.id)).summaries.map((s) => Number(s.clock_nodes));
    const was = before.summaries.map((s) => Number(s.clock_nodes));
    expect(nodes).toEqual(was.map((n) => n + 1));
  });
});
