// The built `meshbench` binary as a child process against the built API as another one:
// on the embedded database always, and on Postgres when DATABASE_URL is set.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, fetchTransport } from '@meshbench/client';
import { createdToken, importResultsResponse } from '@meshbench/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHdrLog } from '../../../apps/api/src/ingest/results/hdr-log.test-fixtures.ts';
import { ADMIN, type Api, api, backends, cli, eventsFile, FIXTURES } from './test/processes.ts';

describe.each(backends)('meshbench CLI on $name', (backend) => {
  let server: Api;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await api(backend.env());
    env = { MESHBENCH_URL: server.url, MESHBENCH_TOKEN: ADMIN };
  });
  afterAll(() => server?.stop());

  const create = async (extra: string[] = [], extraEnv: Record<string, string> = {}) => {
    const r = await cli(
      [
        'run',
        'create',
        '--benchmark',
        'cli-test',
        '--scenario',
        `s-${process.pid}`,
        '--mesh',
        'consul@1.9.5',
        ...extra,
      ],
      { ...env, ...extraEnv },
    );
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim();
  };
  /** The API read back as anyone reads it: through the client, parsed. */
  const reader = () => createClient(fetchTransport({ url: server.url }));
  const summary = (run: string) => reader().runs.propagation(run, 'c1', { percentiles: '50,99' });

  it('creates a run with the CI labels, posts events in batches, and a re-run stores nothing twice', async () => {
    const run = await create(['--label', 'team=mesh', '--topology', 'nodes=50,instances=5000'], {
      GITHUB_ACTIONS: 'true',
      GITHUB_SHA: 'abc123',
      GITHUB_REF: 'refs/heads/main',
      GITHUB_REF_NAME: 'main',
    });
    const got = await reader().runs.get(run);
    expect(got.labels).toEqual({
      ci: 'github-actions',
      sha: 'abc123',
      branch: 'main',
      team: 'mesh',
    });
    expect(got.topology).toEqual({ nodes: 50, instances: 5000 });

    const file = eventsFile(5000, (i) => i % 1000);
    const first = await cli(['events', run, file, '--batch-lines', '1000', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    // 5,001 lines in batches of 1,000: 6 batches.
    expect(JSON.parse(first.stdout)).toEqual({
      run,
      source: createHash('sha256').update(readFileSync(file)).digest('hex'),
      lines: 5001,
      batches: 6,
      accepted: 5001,
      duplicateBatches: 0,
      alreadyStoredLines: 0,
    });
    // Run again, cut the same way or another: every line is known stored, none is sent.
    for (const batchLines of ['1000', '700']) {
      const again = await cli(['events', run, file, '--batch-lines', batchLines, '--json'], env);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({
        batches: 0,
        accepted: 0,
        lines: 5001,
        alreadyStoredLines: 5001,
      });
    }
    expect(await summary(run)).toMatchObject({ count: 5000, observations: 5000 });
  });

  // Restarts and kills mid-upload: cli.faults.test.ts (the faults tier).

  it('uploads result files', async () => {
    const run = await create();
    const r = await cli(
      [
        'upload',
        run,
        join(FIXTURES, 'istio-tools/benchmark.csv'),
        join(FIXTURES, 'envoyproxy-nighthawk/fortio_data_small.json'),
        '--json',
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(
      importResultsResponse
        .array()
        .parse(JSON.parse(r.stdout))
        .map((x) => [x.format, x.imported]),
    ).toEqual([
      ['istio-csv', 82],
      ['fortio', 1],
    ]);
  });

  it('names --format and every format read when it cannot tell a file', async () => {
    const run = await create();
    const file = join(mkdtempSync(join(tmpdir(), 'mb-cli-')), 'what.csv');
    writeFileSync(file, 'when,what\n1,2\n');
    const r = await cli(['upload', run, file], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('what.csv: cannot tell the format of the file');
    expect(r.stderr).toContain('hey (a hey -o csv file)');
    expect(r.stderr).toContain('pass --format <format> to name it');
  });

  it('stores a result file once when the answer to its upload is lost and the CLI retries', async () => {
    const run = await create();
    // In front of the API: every request goes through, but the first upload's answer is
    // dropped (the connection reset once the API has stored the file). The CLI cannot know
    // whether it was stored: its upload names itself by an Idempotency-Key, so it may retry.
    let lost = 0;
    const proxy = createServer((req, res) => {
      const upstream = httpRequest(
        `${server.url}${req.url}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          if (req.method === 'POST' && req.url?.includes('/results') && lost === 0) {
            lost++;
            answer.resume();
            answer.on('end', () => req.socket.destroy());
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const file = join(FIXTURES, 'envoyproxy-nighthawk/fortio_data_small.json');
      const r = await cli(['upload', run, file, '--json', '--retries', '3'], {
        ...env,
        MESHBENCH_URL: url,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(lost).toBe(1);
      expect(r.stderr).toMatch(/retrying in/);
      // The retry is answered as the lost upload: stored before, not again.
      expect(importResultsResponse.array().parse(JSON.parse(r.stdout))).toMatchObject([
        { format: 'fortio', imported: 1, duplicate: true },
      ]);
      expect((await reader().runs.results(run)).filter((p) => p.id !== null)).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it('gates: exit 1 and a Markdown summary when a rule fails, 0 when all pass', async () => {
    // Baseline: latencies 1..1000 ms, P99 = rank 990 = 990 ms.
    // Current: floor(1.2 * k) ms for k = 1..1000, P99 = floor(1.2 * 990) = 1188 ms.
    const base = await create();
    await cli(['events', base, eventsFile(1000, (i) => i + 1)], env);
    const current = await create();
    await cli(['events', current, eventsFile(1000, (i) => (i + 1) * 1.2)], env);
    const summaryFile = join(mkdtempSync(join(tmpdir(), 'meshbench-summary-')), 'summary.md');
    writeFileSync(summaryFile, '');

    const failing = await cli(
      [
        'compare',
        current,
        '--baseline',
        base,
        '--fail-on',
        'p99>+10%',
        '--fail-on',
        'within1s<95%',
      ],
      { ...env, GITHUB_STEP_SUMMARY: summaryFile },
    );
    expect(failing.code).toBe(1);
    // +20 % on P99 breaks +10 %. Within 1 s: floor(1.2 k) <= 1000 for k <= 834 (1.2 * 834 =
    // 1000.8, floored to 1000), so 834 of 1,000 = 83.4 % < 95 %.
    expect(failing.stdout).toContain('❌ 2 of 2 rules failed');
    expect(failing.stdout).toContain(
      '| p99 | 990.0 ms | 1188.0 ms | +198 ms (+20.0 %) 🔺 | ❌ `p99>+10%` |',
    );
    expect(failing.stdout).toContain('| within1s | 100.0 % | 83.4 % |');
    expect(failing.stdout).toContain('- `within1s<95%`: 83.4 < 95');
    expect(failing.stdout).toContain(`/compare?runs=${base},${current}`);
    expect(readFileSync(summaryFile, 'utf8')).toBe(`${failing.stdout.trimEnd()}\n`);

    const passing = await cli(
      ['compare', current, '--baseline', base, '--fail-on', 'p99>+25%', '--json'],
      env,
    );
    expect(passing.code).toBe(0);
    expect(JSON.parse(passing.stdout)).toMatchObject({
      passed: true,
      verdicts: [{ rule: 'p99>+25%', current: 1188, baseline: 990, bound: 1237.5, failed: false }],
    });

    const finished = await cli(
      ['run', 'finish', current, '--gate', '--baseline', base, '--fail-on', 'p50>+10%'],
      env,
    );
    expect(finished.code).toBe(1);
  });

  it('gates on data-plane rules: each load step, exit 1 on a 20 % slower P99, no events needed', async () => {
    const withLog = async (seed: number, medianUs: number) => {
      const run = await create();
      const log = writeHdrLog({
        seed,
        medianUs,
        startMs: 1_764_158_400_000,
        intervals: 10,
        perInterval: 2000,
      });
      const posted = await fetch(
        `${server.url}/api/v1/runs/${run}/results?mode=both&connections=64&targetRps=2000`,
        {
          method: 'POST',
          headers: { 'content-type': 'text/plain', authorization: `Bearer ${ADMIN}` },
          body: log.text,
        },
      );
      expect(posted.status).toBe(201);
      return run;
    };
    const base = await withLog(1, 2000);
    const slow = await withLog(2, 2400);
    const same = await withLog(3, 2000);
    const failing = await cli(
      [
        'compare',
        slow,
        '--baseline',
        base,
        '--fail-on',
        'load.p99>+10%',
        '--fail-on',
        'load.rps<-5%',
      ],
      env,
    );
    expect(failing.code, failing.stderr).toBe(1);
    expect(failing.stdout).toContain('❌ 1 of 2 rules failed');
    expect(failing.stdout).toMatch(
      /\| `load\.p99>\+10%` \| both, 64 conn, 2000 RPS \| [\d.]+ \| [\d.]+ \| ❌ regressed: \+[\d.]+ ms, 95 % interval/,
    );
    expect(failing.stdout).toContain('not significance-tested: a rate');
    const passing = await cli(
      ['compare', same, '--baseline', base, '--fail-on', 'load.p99>+10%', '--json'],
      env,
    );
    expect(passing.code, passing.stderr).toBe(0);
    expect(JSON.parse(passing.stdout)).toMatchObject({
      passed: true,
      loadVerdicts: [{ rule: 'load.p99>+10%', verdict: 'no-significant-change', failed: false }],
    });
  });

  it('gates: a percentile rule broken by one slow proxy passes as no significant change', async () => {
    // 50 proxies at 10, 20 ... 500 ms; the current run's slowest at 600: P99 (rank 50 of 50)
    // 500 -> 600 ms breaks p99>+10%, but a resample of 50 misses that proxy a third of the
    // time, so the interval of the difference holds 0. Every proxy 20 % slower does not.
    const base = await create();
    await cli(['events', base, eventsFile(50, (i) => (i + 1) * 10)], env);
    const oneSlow = await create();
    await cli(['events', oneSlow, eventsFile(50, (i) => (i === 49 ? 600 : (i + 1) * 10))], env);
    const passing = await cli(
      ['compare', oneSlow, '--baseline', base, '--fail-on', 'p99>+10%'],
      env,
    );
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.stdout).toContain('✅ all 1 rules passed');
    expect(passing.stdout).toContain('- `p99>+10%`: no significant change: 95 % interval');
    const slower = await create();
    await cli(['events', slower, eventsFile(50, (i) => (i + 1) * 12)], env);
    const failing = await cli(
      ['compare', slower, '--baseline', base, '--fail-on', 'p99>+10%', '--json'],
      env,
    );
    expect(failing.code).toBe(1);
    expect(JSON.parse(failing.stdout).verdicts[0].significance).toMatchObject({
      verdict: 'regressed',
      delta: 100,
      metric: 'p99',
    });

    // The run's numbers for Bencher: P99 (rank 50 of 50) of 12, 24 ... 600 ms is 600 ms.
    const bmf = await cli(['export', slower, '--format', 'bmf'], env);
    expect(bmf.code, bmf.stderr).toBe(0);
    const parsed = JSON.parse(bmf.stdout) as Record<string, Record<string, { value: number }>>;
    const [name, measures] = Object.entries(parsed)[0] ?? [];
    expect(name).toBe(`cli-test/s-${process.pid}/consul@1.9.5/c1`);
    expect(measures?.['propagation-p99-ms']).toEqual({ value: 600 });
    expect(measures?.['propagation-p50-ms']).toEqual({ value: 300 });
    expect(measures?.['within-1000ms-pct']).toEqual({ value: 100 });
    expect((await cli(['export', slower], env)).code).toBe(2);
  });

  it('gates: a rule pinned with same:mesh.version against another version passes as not comparable, and says why', async () => {
    const base = await create();
    await cli(['events', base, eventsFile(50, (i) => (i + 1) * 10)], env);
    // Every proxy 20 % slower, on another version: a regression if the versions were one.
    const other = await create(['--mesh', 'consul@1.10.0']);
    await cli(['events', other, eventsFile(50, (i) => (i + 1) * 12)], env);
    const pinned = await cli(
      ['compare', other, '--baseline', base, '--fail-on', 'p99>+10% same:mesh.version'],
      env,
    );
    expect(pinned.code, pinned.stderr).toBe(0);
    const reason =
      'different mesh version, pinned by same:mesh.version: 1.10.0 here, 1.9.5 in the baseline';
    expect(pinned.stdout).toContain('✅ all 1 rules passed (⚠️ 1 not comparable)');
    expect(pinned.stdout).toContain(
      `- \`p99>+10% same:mesh.version\`: ⚠️ not comparable: ${reason}`,
    );
    // The check of the two runs, as the compare page words it, above the table.
    expect(pinned.stdout).toContain(
      `- different mesh version, pinned by same:mesh.version: 1.10.0 in consul 1.10.0 (run ${other.slice(0, 8)}), 1.9.5 in consul 1.9.5 (run ${base.slice(0, 8)}, the baseline)`,
    );
    const unpinned = await cli(
      ['compare', other, '--baseline', base, '--fail-on', 'p99>+10%'],
      env,
    );
    expect(unpinned.code).toBe(1);
    expect(unpinned.stdout).not.toContain('Not comparable');
  });

  it('takes the run of the merge base on the target branch as a pull request baseline', async () => {
    const scenario = `merge-base-${Date.now()}`;
    const mk = async (scale: number, labels: string[]) => {
      const r = await cli(
        [
          'run',
          'create',
          '--benchmark',
          'cli-test',
          '--scenario',
          scenario,
          '--mesh',
          'istio',
          ...labels.flatMap((l) => ['--label', l]),
        ],
        env,
      );
      const id = r.stdout.trim();
      await cli(['events', id, eventsFile(100, (i) => (i + 1) * scale)], env);
      await cli(['run', 'finish', id], env);
      return id;
    };
    // main: commits aaa, bbb, ccc (P99 99, 198, 297 ms); the PR branched from bbb.
    await mk(1, ['branch=main', 'sha=aaa']);
    const atBase = await mk(2, ['branch=main', 'sha=bbb']);
    await mk(3, ['branch=main', 'sha=ccc']);
    const pr = await mk(2.1, ['branch=feature', 'sha=fff']);
    const gitlab = {
      ...env,
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
      CI_MERGE_REQUEST_DIFF_BASE_SHA: 'bbb',
    };
    const r = await cli(
      ['compare', pr, '--baseline', 'merge-base', '--fail-on', 'p99>+10%', '--json'],
      gitlab,
    );
    expect(r.code, r.stderr).toBe(0);
    // Held to bbb's run (198 ms; 207 ms is within +10 %), not to the newest on main (ccc).
    expect(JSON.parse(r.stdout)).toMatchObject({
      verdicts: [{ rule: 'p99>+10%', baseline: 198, current: 207, failed: false }],
    });
    expect(JSON.parse(r.stdout).baseline).toContain(atBase);
    const none = await cli(['compare', pr, '--baseline', 'merge-base'], {
      ...gitlab,
      CI_MERGE_REQUEST_DIFF_BASE_SHA: 'not-a-run',
    });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('no finished run on main of merge base not-a-run');
  });

  it("takes the median of a branch's last runs as the baseline", async () => {
    const scenario = `branch-${Date.now()}`;
    const mk = async (scale: number, branch: string) => {
      const r = await cli(
        [
          'run',
          'create',
          '--benchmark',
          'cli-test',
          '--scenario',
          scenario,
          '--mesh',
          'istio',
          '--label',
          `branch=${branch}`,
        ],
        env,
      );
      const id = r.stdout.trim();
      await cli(['events', id, eventsFile(100, (i) => (i + 1) * scale)], env);
      await cli(['run', 'finish', id], env);
      return id;
    };
    // main runs: P99 (rank 99) = 99 * scale: 99, 198, 297 ms; the median is 198 ms.
    // The feature run: floor(99 * 2.1) = floor(207.9) = 207 ms, within +10 % of 198.
    await mk(1, 'main');
    await mk(2, 'main');
    await mk(3, 'main');
    await mk(10, 'other');
    const pr = await mk(2.1, 'feature');
    const r = await cli(
      ['compare', pr, '--baseline', 'branch:main', '--fail-on', 'p99>+10%', '--json'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      baseline: 'median of the last 3 finished run(s) on main',
      verdicts: [{ baseline: 198, current: 207 }],
    });
  });

  it('makes a project and its tokens, which write there until revoked', async () => {
    const name = `cli-${Date.now()}`;
    const project = await cli(['project', 'create', name, '--private', '--json'], env);
    expect(project.code, project.stderr).toBe(0);
    expect(JSON.parse(project.stdout)).toMatchObject({ name, visibility: 'private' });
    const created = await cli(['token', 'create', name, '--name', 'ci', '--json'], env);
    const { id, token } = createdToken.parse(JSON.parse(created.stdout));
    const asToken = { MESHBENCH_URL: server.url, MESHBENCH_TOKEN: token };
    const run = await cli(
      [
        'run',
        'create',
        '--benchmark',
        'cli-test',
        '--scenario',
        'tokens',
        '--mesh',
        'linkerd',
        '--json',
      ],
      asToken,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).projectId).toBe(JSON.parse(project.stdout).id);
    expect((await cli(['token', 'list', name], env)).stdout).toMatch(new RegExp(`${id}  mb_`));
    expect((await cli(['token', 'revoke', id], env)).code).toBe(0);
    const refused = await cli(
      ['run', 'create', '--benchmark', 'b', '--scenario', 's', '--mesh', 'm'],
      asToken,
    );
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('not valid');
  });

  it("shows and sets a project's raw data retention; exit 2 on a bad day count", async () => {
    const name = `cli-retention-${Date.now()}`;
    expect((await cli(['project', 'create', name], env)).code).toBe(0);
    const shown = await cli(['project', 'retention', name], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('raw rows kept for ever; 0 runs dropped theirs');
    const set = await cli(['project', 'retention', name, '--raw-days', '90', '--json'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ rawRetentionDays: 90, rawDroppedRuns: 0 });
    for (const bad of ['0', '1.5', 'ninety']) {
      const refused = await cli(['project', 'retention', name, '--raw-days', bad], env);
      expect(refused.code, bad).toBe(2);
      expect(refused.stderr, bad).toContain('--raw-days');
    }
    expect((await cli(['project', 'retention', name], env)).stdout).toContain('90 days');
    const kept = await cli(['project', 'retention', name, '--keep-raw'], env);
    expect(kept.stdout).toContain('for ever');
  });

  it("deletes a run with its project's token: exit 3 for another project's, 4 once gone", async () => {
    const tokenOf = async (suffix: string) => {
      const name = `cli-delete-${suffix}-${Date.now()}`;
      expect((await cli(['project', 'create', name, '--private'], env)).code).toBe(0);
      const created = await cli(['token', 'create', name, '--name', 'ci', '--json'], env);
      return {
        MESHBENCH_URL: server.url,
        MESHBENCH_TOKEN: createdToken.parse(JSON.parse(created.stdout)).token,
      };
    };
    const own = await tokenOf('own');
    const other = await tokenOf('other');
    const created = await cli(
      ['run', 'create', '--benchmark', 'cli-test', '--scenario', 'delete', '--mesh', 'consul'],
      own,
    );
    expect(created.code, created.stderr).toBe(0);
    const run = created.stdout.trim();
    const posted = await cli(['events', run, eventsFile(10, () => 0)], own);
    expect(posted.code, posted.stderr).toBe(0);
    const admin = createClient(fetchTransport({ url: server.url, token: ADMIN }));

    const refused = await cli(['run', 'delete', run], other);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('another project');
    expect((await admin.runs.get(run)).id).toBe(run);

    const deleted = await cli(['run', 'delete', run], own);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout.trim()).toBe(`run ${run} deleted`);
    await expect(admin.runs.get(run)).rejects.toMatchObject({ status: 404 });
    expect((await cli(['run', 'delete', run], own)).code).toBe(4);
    expect((await cli(['run', 'delete'], own)).code).toBe(2);
  });

  it('exits 2 on usage errors and 4 for an unknown run', async () => {
    expect((await cli(['compare', 'x', '--fail-on', 'p98>1s'], env)).code).toBe(2);
    expect((await cli(['frobnicate'], env)).code).toBe(2);
    expect((await cli(['events', 'x'], env)).code).toBe(2);
    const missing = await cli(
      ['compare', '00000000-0000-0000-0000-000000000000', '--fail-on', 'p99>1s'],
      env,
    );
    expect(missing.code).toBe(4);
    expect((await cli(['--help'], env)).stdout).toContain('Exit codes:');
  });
});
