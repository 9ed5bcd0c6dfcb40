// meshbench: upload service-mesh benchmark results from CI and fail a build on a regression.
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { ApiRequestError, type Client, createClient, watchRun } from '@meshbench/client';
import {
  evaluate,
  isLoadRule,
  type Metrics,
  medianMetrics,
  metricsOf,
  parseLoadRule,
  parseRule,
  type Rule,
  RuleError,
} from '@meshbench/gates';
import {
  type CreateRunBody,
  type FinishRunBody,
  FORMAT_HINT,
  type GateVerdict,
  LIVE_CHURN_QUERY,
  LIVE_MAX_CHANGES,
  LIVE_STAGE_PERCENTILES,
  type Propagation,
  type Run,
  type Topology,
  topology,
  visibility,
} from '@meshbench/schema';
import { runBmf } from './bmf.ts';
import { ciLabels } from './ci-labels.ts';
import { type EventsUpload, uploadEvents } from './events-upload.ts';
import { http } from './http.ts';
import {
  fitMarkdown,
  type GateLine,
  GITHUB_COMMENT_LIMIT,
  GITHUB_STEP_SUMMARY_LIMIT,
  markdownSummary,
} from './markdown.ts';
import { mergeBaseOf, mergeBaseRun } from './merge-base.ts';
import { type RunView, runHeading, runLines, runSummary } from './run-view.ts';

export const EXIT = { ok: 0, gateFailed: 1, usage: 2, api: 3, notFound: 4 } as const;

/** The keys --topology takes: the schema's, in its order. */
const TOPOLOGY_KEYS: readonly string[] = topology.keyof().options;
const TOPOLOGY_USAGE = TOPOLOGY_KEYS.map((key) => `${key}=N`).join(',');

const HELP = `meshbench: upload service-mesh benchmark results and gate on regressions

Usage:
  meshbench run create --benchmark B --scenario S --mesh NAME[@VERSION] [options]
  meshbench events <run> <file.ndjson | ->          post probe events (NDJSON), in batches
  meshbench upload <run> <file>...                  post load-test result files (Fortio, Nighthawk,
                                                    k6, wrk, wrk2, SMP, Istio perf CSV, HdrHistogram
                                                    log, Locust CSV or --json, hey CSV, JMeter
                                                    JTL CSV, Vegeta binary or JSON, ghz JSON, Gatling
                                                    simulation.log, oha JSON); --format NAME
  meshbench run finish <run> [--status S] [--gate --baseline B --fail-on RULE...]
  meshbench run show <run>                          the run's numbers: per change applied/expected,
                                                    P50/P99 (exact or bounded), phases, RPS per
                                                    stage
  meshbench watch <run>                             the same, as it happens (a line per change,
                                                    at most once a second), ending with what
                                                    run show prints once the run finishes
  meshbench run delete <run>                        delete the run and every row of it (its
                                                    project's token or the admin); reports
                                                    that froze it keep their content
  meshbench compare <run> --baseline B [--fail-on RULE]...
  meshbench export <run> --format bmf               the run's propagation numbers as Bencher
                                                    Metric Format JSON (a benchmark per change)
  meshbench project create <name> [--private]         (admin token)
  meshbench project retention <project> [--raw-days N | --keep-raw]
                                                    shows, or sets, the days a done run's raw
                                                    rows are kept (--keep-raw: for ever)
  meshbench token create <project> --name N           prints the token (shown once)
  meshbench token list <project>
  meshbench token revoke <token-id>

Global options:
  --url URL          the meshbench server (env MESHBENCH_URL; default http://localhost:3000)
  --token TOKEN      a write token (env MESHBENCH_TOKEN)
  --json             print JSON for scripts instead of text
  --retries N        retries on network errors, 429, 502, 503 and 504 (default 8, with
                     backoff; a Retry-After is honoured); a 4xx is never retried
  --timeout S        seconds to wait for each response (default 120)
  -h, --help         this help

run create:
  --project P   project id or name (default: the token's project)
  --platform P  --environment E  --topology ${TOPOLOGY_USAGE}
  --label k=v (repeatable; CI labels sha, branch, pr, url, ci are added from GitHub Actions,
  GitLab CI, CircleCI, Buildkite and Jenkins variables; a --label overrides them)
  --started-at RFC3339. Prints the run id (--json: the run).

events:
  --batch-lines N    lines per request (default 50000). The file is named by its SHA-256
                     and each batch by the lines it holds; the server keeps which lines of
                     the file it stored, and a re-run (after a failure, a crash, or with
                     another --batch-lines) sends only the lines not stored yet, so nothing
                     is stored twice. Standard input is kept in a temporary file first.

compare / run finish --gate:
  --baseline RUN             a run id or slug, or branch:NAME for the median of the last
                             --last N (default 5) finished runs of the same benchmark and
                             scenario on that branch, or merge-base: on a pull request, the
                             newest run on its target branch of the commit it branched from
                             (or started before it): GitLab's merge request variables, or
                             GITHUB_BASE_REF and git; MESHBENCH_TARGET_BRANCH and
                             MESHBENCH_MERGE_BASE set them by hand
  --change ID                the change to compare (default: the run's first)
  --fail-on RULE             repeatable; the build fails when a rule holds:
                               p99>+10%       P99 more than 10 % above the baseline
                               p50>-5%        (relative rules take a sign and %)
                               p99>1500ms     P99 above 1,500 ms (ms or s)
                               within1s<95%   fewer than 95 % of proxies within 1 s
                               missing>0      proxies that never applied the change
                             metrics: p50 p90 p95 p96 p99 p99.9 mean max within1s missing
                             a relative percentile rule (p99>+10%) fails only when the
                             server finds the change beyond noise (exact bootstrap interval
                             without 0, beyond the noise floor of runs labelled repeat)
                             data plane, held at every load step run and baseline share:
                               load.p99>+10%  load.p50 load.p90 load.p99 load.p99.9 (or 5ms)
                               load.rps<-5%   achieved rate 5 % below the baseline's
                               load.errors>+1pp  error rate 1 point above (or load.errors>1%)
                             where both steps hold an HdrHistogram a latency rule is
                             significance-tested too; a step short of its target rate or
                             with a saturated generator is not comparable (no failure)
  Prints a Markdown summary (also appended to $GITHUB_STEP_SUMMARY when set).

Exit codes:
  0 done, every rule passed   1 a rule failed   2 usage error
  3 the server refused or could not be reached (after retries)   4 run or change not found
`;

class UsageError extends Error {}

interface Ctx {
  api: Client;
  url: string;
  token: string | undefined;
  json: boolean;
  out: (s: string) => void;
  err: (s: string) => void;
  env: NodeJS.ProcessEnv;
}

function labelsFrom(values: string[] | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const v of values ?? []) {
    const i = v.indexOf('=');
    if (i <= 0) throw new UsageError(`--label takes key=value, got "${v}"`);
    labels[v.slice(0, i)] = v.slice(i + 1);
  }
  return labels;
}

function topologyFrom(value: string | undefined): Topology | undefined {
  if (!value) return undefined;
  const out: Record<string, number> = {};
  for (const part of value.split(',')) {
    const [k, v] = part.split('=');
    if (!k || !TOPOLOGY_KEYS.includes(k) || !/^\d+$/.test(v ?? '')) {
      throw new UsageError(`--topology takes ${TOPOLOGY_USAGE}; got "${part}"`);
    }
    out[k] = Number(v);
  }
  return out;
}

async function runCreate(ctx: Ctx, values: Record<string, unknown>) {
  for (const required of ['benchmark', 'scenario', 'mesh']) {
    if (!values[required]) throw new UsageError(`run create needs --${required}`);
  }
  const [name = '', version] = String(values.mesh).split('@');
  const text = (key: string) => (values[key] ? String(values[key]) : undefined);
  const sized = topologyFrom(text('topology'));
  const body: CreateRunBody = {
    benchmark: String(values.benchmark),
    scenario: String(values.scenario),
    mesh: { name, ...(version ? { version } : {}) },
    ...(values.project ? { project: String(values.project) } : {}),
    ...(values.platform ? { platform: String(values.platform) } : {}),
    ...(values.environment ? { environment: String(values.environment) } : {}),
    ...(sized ? { topology: sized } : {}),
    ...(values['started-at'] ? { startedAt: String(values['started-at']) } : {}),
    labels: { ...ciLabels(ctx.env), ...labelsFrom(values.label as string[] | undefined) },
  };
  const run = await ctx.api.runs.create(body);
  ctx.out(ctx.json ? JSON.stringify(run) : run.id);
}

async function events(ctx: Ctx, runRef: string, file: string, batchLines: number) {
  const run = await ctx.api.runs.get(runRef);
  const done: EventsUpload = await uploadEvents({
    api: ctx.api,
    runId: run.id,
    file: file === '-' ? process.stdin : file,
    batchLines,
    log: ctx.err,
  });
  ctx.out(
    ctx.json
      ? JSON.stringify({ run: run.id, ...done })
      : `${done.accepted} events in ${done.batches} batches stored on run ${run.id}${done.alreadyStoredLines > 0 ? ` (${done.alreadyStoredLines} of ${done.lines} lines were already stored)` : ''}`,
  );
}

async function upload(ctx: Ctx, runRef: string, files: string[], format: string) {
  const results = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    const result = await ctx.api.runs
      .importResults(runRef, {
        body: gzipSync(bytes),
        contentEncoding: 'gzip',
        query: { format },
        // Named by its content: a retry after a lost answer (or the same file sent again) is
        // stored once.
        idempotencyKey: `results:${format}:${createHash('sha256').update(bytes).digest('hex')}`,
      })
      .catch((error: unknown) => {
        // The API says how to name a format in its terms (?format=); here it is --format.
        if (error instanceof ApiRequestError && error.code === 'undetectable') {
          throw new ApiRequestError(
            error.status,
            error.code,
            `${basename(file)}: ${error.message.replace(FORMAT_HINT, 'pass --format <format> to name it')}`,
            error.body,
          );
        }
        throw error;
      });
    results.push({ file, ...result });
    if (!ctx.json) {
      ctx.out(
        `${basename(file)}: ${result.duplicate ? `already stored (${result.imported} point(s) as ${result.format}), not stored again` : `${result.imported} point(s) imported as ${result.format}`}${result.unmapped.length ? `; not mapped: ${result.unmapped.join(', ')}` : ''}`,
      );
      for (const note of result.notes) ctx.out(`  ${note}`);
    }
  }
  if (ctx.json) ctx.out(JSON.stringify(results));
}

async function propagationOf(
  ctx: Ctx,
  run: Run,
  changeId: string | undefined,
): Promise<Propagation> {
  const changes = await ctx.api.runs.changes(run.id);
  const change = changeId ? changes.find((c) => c.id === changeId) : changes[0];
  if (!change)
    throw new ApiRequestError(
      404,
      'not_found',
      changeId ? `run ${run.id} has no change "${changeId}"` : `run ${run.id} has no changes`,
    );
  return ctx.api.runs.propagation(run.id, change.id);
}

/** The run id of a PR's merge-base baseline, from the CI variables (and git). */
async function mergeBaseBaseline(
  ctx: Ctx,
  run: { id: string; benchmark: string; scenario: string },
): Promise<string> {
  const mb = mergeBaseOf(ctx.env);
  if (!mb)
    throw new UsageError(
      '--baseline merge-base needs a pull request: GITHUB_BASE_REF (and git), GitLab merge request variables, or MESHBENCH_TARGET_BRANCH with MESHBENCH_MERGE_BASE',
    );
  const list = await ctx.api.runs.list({
    benchmark: run.benchmark,
    scenario: run.scenario,
    label: `branch:${mb.target}`,
    status: 'finished',
    limit: 100,
  });
  const base = mergeBaseRun(
    list.runs.filter((r) => r.id !== run.id),
    mb,
  );
  if (!base)
    throw new ApiRequestError(
      404,
      'not_found',
      `no finished run on ${mb.target} of merge base ${mb.sha}${mb.committedAt ? ` or started before it (${mb.committedAt})` : ''}`,
    );
  ctx.err(`baseline: run ${base.id} on ${mb.target} (merge base ${mb.sha.slice(0, 12)})`);
  return base.id;
}

/**
 * Why the run and a baseline run cannot be compared (the compare page's warnings), pinned as
 * any rule pins it: what every rule's verdict stands on, said once above them.
 */
async function comparabilityWarnings(
  ctx: Ctx,
  runId: string,
  baselineId: string | undefined,
  rules: Rule[],
): Promise<string[]> {
  if (baselineId === undefined) return [];
  const same = rules.find((r) => r.same.length > 0)?.same[0];
  try {
    const c = await ctx.api.compare.comparability({ runs: `${baselineId},${runId}`, same });
    return c.warnings.map((w) => w.reason);
  } catch (error) {
    // A server from before the check: the rules' own significance verdicts still say it.
    if (error instanceof ApiRequestError && error.status === 404) return [];
    throw error;
  }
}

async function gate(ctx: Ctx, runRef: string, values: Record<string, unknown>): Promise<number> {
  const texts = (values['fail-on'] as string[] | undefined) ?? [];
  const rules = texts.filter((t) => !isLoadRule(t)).map(parseRule);
  const loadRules = texts.filter(isLoadRule).map(parseLoadRule);
  let baselineRef = values.baseline as string | undefined;
  const changeId = values.change as string | undefined;
  const run = await ctx.api.runs.get(runRef);
  if (baselineRef === 'merge-base') baselineRef = await mergeBaseBaseline(ctx, run);
  // Data-plane rules: the server holds each at every load step (GET /runs/{id}/load-gate).
  const loadVerdicts: GateVerdict[] = [];
  for (const rule of loadRules)
    loadVerdicts.push(
      await ctx.api.runs.loadGate(run.id, {
        rule: rule.text,
        ...(baselineRef ? { baseline: baselineRef } : {}),
      }),
    );
  // Only data-plane rules: the run need not have a change to propagate.
  const propagated = rules.length > 0 || loadRules.length === 0;
  const current = propagated ? metricsOf(await propagationOf(ctx, run, changeId)) : null;

  let baseline: Metrics | null = null;
  let baselineId: string | undefined;
  let baselineLabel = 'none';
  let compareUrl: string | undefined = `${ctx.url}/runs/${run.id}`;
  if (baselineRef?.startsWith('branch:')) {
    const branch = baselineRef.slice('branch:'.length);
    const last = Number(values.last ?? 5);
    const list = await ctx.api.runs.list({
      benchmark: run.benchmark,
      scenario: run.scenario,
      label: `branch:${branch}`,
      status: 'finished',
      limit: last + 1,
    });
    const history = propagated ? list.runs.filter((r) => r.id !== run.id).slice(0, last) : [];
    const all: Metrics[] = [];
    for (const r of history) {
      try {
        all.push(metricsOf(await propagationOf(ctx, r, changeId)));
      } catch (error) {
        if (!(error instanceof ApiRequestError && error.status === 404)) throw error;
      }
    }
    if (all.length > 0) baseline = medianMetrics(all);
    baselineLabel = `median of the last ${all.length} finished run(s) on ${branch}`;
  } else if (baselineRef) {
    const base = await ctx.api.runs.get(baselineRef);
    baselineId = base.id;
    if (propagated) baseline = metricsOf(await propagationOf(ctx, base, changeId));
    baselineLabel = `run ${base.id} (${base.mesh.name}${base.mesh.version ? ` ${base.mesh.version}` : ''}, ${base.startedAt})`;
    compareUrl = `${ctx.url}/compare?runs=${base.id},${run.id}`;
  }
  const verdicts: GateLine[] = rules.map((rule) =>
    evaluate(rule, current ? current[rule.metric] : null, baseline ? baseline[rule.metric] : null),
  );
  // A percentile rule against a baseline is also asked whether the change is beyond noise
  // (the server's exact bootstrap and noise floor): the build fails only when it is.
  for (const v of verdicts) {
    const { rule } = v;
    if (
      !baselineRef ||
      !rule.relative ||
      (rule.op !== '>' && rule.op !== '>=') ||
      !/^p\d/.test(rule.metric) ||
      v.baseline === null ||
      v.current === null
    )
      continue;
    try {
      v.significance = await ctx.api.runs.significance(run.id, {
        baseline: baselineRef,
        last: Number(values.last ?? 5),
        metric: rule.metric,
        minEffectMs: Math.abs(rule.value * v.baseline),
        // A rule's same:mesh.version: a baseline of another version is not comparable.
        same: rule.same[0],
      });
    } catch (error) {
      if (error instanceof ApiRequestError && error.status === 404) continue;
      throw error;
    }
    if (v.failed && v.significance.verdict !== 'regressed') {
      v.failed = false;
      v.reason = `${v.reason}, but not significant: ${v.significance.reason}`;
    }
  }
  const failed = verdicts.some((v) => v.failed) || loadVerdicts.some((v) => v.failed);
  const notComparable = await comparabilityWarnings(ctx, run.id, baselineId, rules);
  const title = `${run.mesh.name}${run.mesh.version ? ` ${run.mesh.version}` : ''} · ${run.benchmark} / ${run.scenario}`;
  const md = markdownSummary({
    title,
    baselineLabel,
    current,
    baseline,
    verdicts,
    loadVerdicts,
    compareUrl,
    notComparable,
  });
  // Within GitHub's limits: the job summary's 1 MiB; a PR comment's or check run's text.
  if (ctx.env.GITHUB_STEP_SUMMARY)
    appendFileSync(
      ctx.env.GITHUB_STEP_SUMMARY,
      fitMarkdown(md, GITHUB_STEP_SUMMARY_LIMIT, compareUrl),
    );
  ctx.out(
    ctx.json
      ? JSON.stringify({
          run: run.id,
          baseline: baselineLabel,
          current,
          baselineMetrics: baseline,
          passed: !failed,
          notComparable,
          verdicts: verdicts.map((v) => ({
            rule: v.rule.text,
            current: v.current,
            baseline: v.baseline,
            bound: v.bound,
            failed: v.failed,
            reason: v.reason,
            ...(v.significance ? { significance: v.significance } : {}),
          })),
          loadVerdicts,
        })
      : fitMarkdown(md, GITHUB_COMMENT_LIMIT, compareUrl),
  );
  return failed ? EXIT.gateFailed : EXIT.ok;
}

/** The run's stored views, read as a live state reads them (the routes' defaults). */
async function storedView(ctx: Ctx, runRef: string): Promise<RunView> {
  const run = await ctx.api.runs.get(runRef);
  const changes = await ctx.api.runs.changes(run.id);
  const carried = changes.slice(0, LIVE_MAX_CHANGES);
  const propagation = [];
  for (const c of carried) {
    const summary = await ctx.api.runs.propagation(run.id, c.id).catch((error: unknown) => {
      if (error instanceof ApiRequestError && (error.status === 404 || error.status === 409))
        return null;
      throw error;
    });
    propagation.push({ change: c.id, summary });
  }
  const stages = await ctx.api.runs
    .loadStages(run.id, { percentiles: LIVE_STAGE_PERCENTILES.join(',') })
    .catch((error: unknown) => {
      if (error instanceof ApiRequestError && error.status === 404) return null;
      throw error;
    });
  return {
    run,
    changes,
    propagation,
    changesLeftOut: changes.length - carried.length,
    churn: changes.length >= 2 ? await ctx.api.runs.runPropagation(run.id, LIVE_CHURN_QUERY) : null,
    timeline: await ctx.api.runs.timeline(run.id),
    series: await ctx.api.runs.series(run.id),
    results: await ctx.api.runs.results(run.id),
    stages,
  };
}

/**
 * Follows the run's live stream: its numbers at each state (at most one a second), then, at
 * the end, what `run show` prints. --json: each event as one line of JSON.
 */
async function watch(ctx: Ctx, runRef: string): Promise<number> {
  let first = true;
  for await (const event of watchRun(runRef, { url: ctx.url, token: ctx.token })) {
    if (first) {
      ctx.err(`watching ${runHeading(event.state)}`);
      first = false;
    }
    if (ctx.json) {
      ctx.out(JSON.stringify({ event: event.kind, id: event.id, state: event.state }));
      continue;
    }
    if (event.kind === 'end') {
      ctx.out(runSummary(event.state));
      return EXIT.ok;
    }
    const time = new Date().toISOString().slice(11, 19);
    ctx.out(
      runLines(event.state)
        .map((line) => `${time} ${line}`)
        .join('\n'),
    );
  }
  return EXIT.ok;
}

/** The command line's options: what parseArgs accepts, for every command. */
const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  retries: { type: 'string' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  benchmark: { type: 'string' },
  scenario: { type: 'string' },
  mesh: { type: 'string' },
  platform: { type: 'string' },
  environment: { type: 'string' },
  topology: { type: 'string' },
  label: { type: 'string', multiple: true },
  'started-at': { type: 'string' },
  'batch-lines': { type: 'string' },
  format: { type: 'string' },
  status: { type: 'string' },
  'finished-at': { type: 'string' },
  gate: { type: 'boolean' },
  baseline: { type: 'string' },
  last: { type: 'string' },
  change: { type: 'string' },
  'fail-on': { type: 'string', multiple: true },
  project: { type: 'string' },
  private: { type: 'boolean' },
  name: { type: 'string' },
  'raw-days': { type: 'string' },
  'keep-raw': { type: 'boolean' },
} as const;

type Values = Record<string, unknown>;
/** A command: its arguments after its name, and the options. */
type Command = (ctx: Ctx, rest: string[], values: Values) => Promise<number>;

/** Each command by its words ("run create"), or by its first word when it has one. */
const COMMANDS: Record<string, Command> = {
  'run create': async (ctx, _rest, values) => {
    await runCreate(ctx, values);
    return EXIT.ok;
  },
  'run finish': async (ctx, rest, values) => {
    const runRef = rest[1];
    if (!runRef) throw new UsageError('run finish needs a run id');
    const body = {
      // As given: the API says which statuses a run may finish with.
      ...(values.status ? { status: String(values.status) as FinishRunBody['status'] } : {}),
      ...(values['finished-at'] ? { finishedAt: String(values['finished-at']) } : {}),
    };
    const run = await ctx.api.runs.finish(runRef, body);
    if (!values.gate) {
      ctx.out(ctx.json ? JSON.stringify(run) : `run ${run.id} ${run.status} at ${run.finishedAt}`);
      return EXIT.ok;
    }
    return await gate(ctx, run.id, values);
  },
  'run show': async (ctx, rest, _values) => {
    const runRef = rest[1];
    if (!runRef) throw new UsageError('run show needs a run id or slug');
    const view = await storedView(ctx, runRef);
    ctx.out(ctx.json ? JSON.stringify(view) : runSummary(view));
    return EXIT.ok;
  },
  watch: async (ctx, rest, _values) => {
    const runRef = rest[0];
    if (!runRef) throw new UsageError('watch needs a run id or slug');
    return await watch(ctx, runRef);
  },
  'run delete': async (ctx, rest, _values) => {
    const runRef = rest[1];
    if (!runRef) throw new UsageError('run delete needs a run id or slug');
    if (rest.length > 2) throw new UsageError('run delete takes one run');
    await ctx.api.runs.delete(runRef);
    ctx.out(ctx.json ? JSON.stringify({ deleted: runRef }) : `run ${runRef} deleted`);
    return EXIT.ok;
  },
  events: async (ctx, rest, values) => {
    const [runRef, file] = rest;
    if (!runRef || !file) throw new UsageError('events needs <run> and <file|->');
    const batchLines = Number(values['batch-lines'] ?? 50_000);
    if (!Number.isInteger(batchLines) || batchLines < 1)
      throw new UsageError('--batch-lines takes a positive whole number');
    await events(ctx, runRef, file, batchLines);
    return EXIT.ok;
  },
  upload: async (ctx, rest, values) => {
    const [runRef, ...files] = rest;
    if (!runRef || files.length === 0)
      throw new UsageError('upload needs <run> and at least one file');
    await upload(ctx, runRef, files, String(values.format ?? 'auto'));
    return EXIT.ok;
  },
  compare: async (ctx, rest, values) => {
    const [runRef] = rest;
    if (!runRef) throw new UsageError('compare needs a run');
    if (
      !values.baseline &&
      (values['fail-on'] as string[] | undefined)?.some((r) => /[+-]\d/.test(r))
    ) {
      throw new UsageError('relative rules need --baseline');
    }
    return await gate(ctx, runRef, values);
  },
  export: async (ctx, rest, values) => {
    const [runRef] = rest;
    if (!runRef) throw new UsageError('export needs a run');
    if (values.format !== 'bmf')
      throw new UsageError('export takes --format bmf (Bencher Metric Format)');
    const run = await ctx.api.runs.get(runRef);
    const changes = await ctx.api.runs.changes(run.id);
    const all = [];
    for (const c of changes)
      all.push({
        id: c.id,
        propagation: await ctx.api.runs.propagation(run.id, c.id, {
          percentiles: '50,90,96,99,99.9',
        }),
      });
    ctx.out(JSON.stringify(runBmf(run, all), null, 2));
    return EXIT.ok;
  },
  'project create': async (ctx, rest, values) => {
    if (!rest[1]) throw new UsageError('project create needs a name');
    const project = await ctx.api.projects.create({
      name: rest[1],
      visibility: values.private ? visibility.enum.private : visibility.enum.public,
    });
    ctx.out(
      ctx.json ? JSON.stringify(project) : `${project.id} ${project.name} (${project.visibility})`,
    );
    return EXIT.ok;
  },
  'project retention': async (ctx, rest, values) => {
    const target = rest[1];
    if (!target) throw new UsageError('project retention needs a project');
    if (values['raw-days'] !== undefined && values['keep-raw'])
      throw new UsageError('project retention takes --raw-days N or --keep-raw, not both');
    const rawDays = values['raw-days'];
    if (rawDays !== undefined && !/^[1-9]\d{0,4}$/.test(String(rawDays)))
      throw new UsageError(`--raw-days: ${rawDays}? a whole number of days from 1`);
    const retention =
      rawDays !== undefined || values['keep-raw']
        ? await ctx.api.projects.setRetention(target, {
            rawRetentionDays: rawDays !== undefined ? Number(rawDays) : null,
          })
        : await ctx.api.projects.retention(target);
    ctx.out(
      ctx.json
        ? JSON.stringify(retention)
        : `${retention.projectId}: raw rows kept ${retention.rawRetentionDays === null ? 'for ever' : `${retention.rawRetentionDays} days`}; ${retention.rawDroppedRuns} runs dropped theirs`,
    );
    return EXIT.ok;
  },
  token: async (ctx, rest, values) => {
    const [verb, target] = rest;
    if (verb === 'create' && target) {
      if (!values.name) throw new UsageError('token create needs --name');
      const created = await ctx.api.projects.createToken(target, { name: String(values.name) });
      ctx.out(ctx.json ? JSON.stringify(created) : created.token);
      if (!ctx.json) ctx.err(`token ${created.id}: shown this once; keep it as MESHBENCH_TOKEN`);
      return EXIT.ok;
    }
    if (verb === 'list' && target) {
      const tokens = await ctx.api.projects.tokens(target);
      ctx.out(
        ctx.json
          ? JSON.stringify(tokens)
          : tokens
              .map(
                (t) =>
                  `${t.id}  ${t.prefix}…  ${t.name}  last used ${t.lastUsedAt ?? 'never'}${t.revokedAt ? '  (revoked)' : ''}`,
              )
              .join('\n'),
      );
      return EXIT.ok;
    }
    if (verb === 'revoke' && target) {
      await ctx.api.projects.revokeToken(target);
      ctx.out(ctx.json ? JSON.stringify({ revoked: target }) : `token ${target} revoked`);
      return EXIT.ok;
    }
    throw new UsageError('token takes create <project> --name N, list <project> or revoke <id>');
  },
};

/** The command the words name; an own key only, so `constructor` is no command. */
function commandOf(first: string | undefined, second: string | undefined): Command | undefined {
  const words = `${first} ${second}`;
  if (Object.hasOwn(COMMANDS, words)) return COMMANDS[words];
  return first !== undefined && Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
}

export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io = { out: (s: string) => console.log(s), err: (s: string) => console.error(s) },
): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    io.err(`meshbench: ${(error as Error).message}\n\n${HELP}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    io.out(HELP);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const url = String(values.url ?? env.MESHBENCH_URL ?? 'http://localhost:3000').replace(
    /\/+$/,
    '',
  );
  const retries = Number(values.retries ?? 8);
  const timeoutS = Number(values.timeout ?? 120);
  const ctx: Ctx = {
    api: createClient(
      http({
        url,
        token: (values.token as string | undefined) ?? env.MESHBENCH_TOKEN,
        retries,
        backoffMs: 500,
        timeoutMs: timeoutS * 1000,
        log: io.err,
      }),
    ),
    url,
    token: (values.token as string | undefined) ?? env.MESHBENCH_TOKEN,
    json: Boolean(values.json),
    out: io.out,
    err: io.err,
    env,
  };
  const [command, ...rest] = positionals;
  try {
    if (!Number.isInteger(retries) || retries < 0)
      throw new UsageError('--retries takes a whole number');
    if (!(timeoutS > 0)) throw new UsageError('--timeout takes a number of seconds above 0');
    const run = commandOf(command, rest[0]);
    if (run) return await run(ctx, rest, values);
    throw new UsageError(`unknown command "${positionals.join(' ')}"`);
  } catch (error) {
    if (error instanceof UsageError || error instanceof RuleError) {
      io.err(`meshbench: ${error.message} (meshbench --help)`);
      return EXIT.usage;
    }
    if (error instanceof ApiRequestError) {
      io.err(`meshbench: ${error.message}`);
      return error.status === 404 ? EXIT.notFound : EXIT.api;
    }
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      io.err(`meshbench: ${(error as Error).message}`);
      return EXIT.usage;
    }
    throw error;
  }
}

// Run when executed (the bundle's entry), not when imported by tests.
if (process.argv[1] && /meshbench|cli\.js$|main\.ts$/.test(process.argv[1])) {
  main(process.argv.slice(2), process.env).then(
    (code) => process.exit(code),
    (error) => {
      console.error(error);
      process.exit(EXIT.api);
    },
  );
}
