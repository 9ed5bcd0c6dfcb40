// Mutation scores per file, held to a committed baseline (issue 28): CI fails when a changed
// file's Stryker score drops below its baseline. A whole run of domain/ and the decoders takes
// far longer than CI can give (thousands of mutants on 2 cores), so the check mutates only the
// files changed since the commit each was measured at (its own `commit` in the baseline; `git
// diff`, the working tree included), with their colocated tests and the rank rules' callers'
// tests. Each file keeps its own commit: measuring one file must not hide another's changes.
//
//   node scripts/mutation-score.mjs --check [--dry]     changed files vs mutation-baseline.json
//   node scripts/mutation-score.mjs --update [file...]  measure files (default: those in the
//                                                       baseline) and write their scores
//   node scripts/mutation-score.mjs --report FILE.json  scores of an existing Stryker report
//
// Score = (killed + timeout) / (killed + timeout + survived + no coverage), as Stryker counts
// it; compile and runtime errors and ignored mutants do not count.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const api = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BASELINE = join(api, 'mutation-baseline.json');
// Per run, so two measurements (of different files) can run at once.
const REPORT = join(api, `reports/mutation/changed-${process.pid}.json`);
/** What may be mutated: domain/ and the decoders, not their tests nor tests' helpers and fixtures. */
export const IN_SCOPE = /^src\/(domain|ingest)\/.*(?<!\.test|\.test-[a-z]+|\.entry)\.ts$/;
/** A score may wobble this much (points) between runs before it counts as a drop. */
const TOLERANCE = 0.01;

export function scoresOf(report) {
  const out = {};
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const n = { killed: 0, survived: 0, timeout: 0, noCoverage: 0 };
    for (const m of mutants) {
      if (m.status === 'Killed') n.killed++;
      else if (m.status === 'Survived') n.survived++;
      else if (m.status === 'Timeout') n.timeout++;
      else if (m.status === 'NoCoverage') n.noCoverage++;
    }
    const valid = n.killed + n.timeout + n.survived + n.noCoverage;
    const key = relative(api, resolve(api, file));
    out[key] = {
      score: valid === 0 ? null : Math.round(((n.killed + n.timeout) / valid) * 10000) / 100,
      ...n,
    };
  }
  return out;
}

const isUnitTest = (n) => n.endsWith('.test.ts') && !/\.(int|faults|medium)\.test\.ts$/.test(n);

/** The files of its own directory a source file imports: `from './y.ts'` -> y.ts. */
const siblingImports = (dir) => (name) =>
  [
    ...readFileSync(join(api, dir, name), 'utf8').matchAll(
      /\b(?:from|import)\s*\(?\s*'\.\/([^'/]+)'/g,
    ),
  ].map((m) => m[1]);

/**
/**
 * Files whose code is also exercised through a sibling's tests: those siblings' tests are
 * theirs too. load-steps.ts's HdrMerger and slot grid are driven by load-slot-rows.test.ts.
 */
export const ALSO_TESTED_WITH = {
  'src/domain/load-steps.ts': ['src/domain/load-slot-rows.ts'],
};

/**
 * A file's tests (ownTestsOf) with those of the siblings ALSO_TESTED_WITH names for it.
 */
export function testsOf(
  file,
  names = readdirSync(join(api, dirname(file))),
  importsOf = siblingImports(dirname(file)),
  also = ALSO_TESTED_WITH,
) {
  const siblings = (also[file] ?? []).filter((s) => dirname(s) === dirname(file));
  return [
    ...new Set([
      ...ownTestsOf(file, names, importsOf),
      ...siblings.flatMap((s) => ownTestsOf(s, names, importsOf)),
    ]),
  ];
}

/**
 * The colocated tests of a file: x.ts -> x.test.ts and x.*.test.ts beside it, and x-y.test.ts
 * when there is no x-y.ts (hdr.ts's hdr-bounds.test.ts); unit only. A file with none of these
 * (otlp-values.ts) is tested by the unit tests beside it that import it, directly or through
 * other files of its directory (otlp-metrics.test.ts -> otlp-metrics.ts -> otlp-values.ts).
 */
function ownTestsOf(file, names, importsOf) {
  const dir = dirname(file);
  const stem = basename(file, '.ts');
  const ownTests = (n) => {
    if (n.startsWith(`${stem}.`)) return true;
    if (!n.startsWith(`${stem}-`)) return false;
    // x-y.test.ts and x-y.z.test.ts are x-y.ts's when that file exists.
    const own = n.slice(0, n.indexOf('.'));
    return !names.includes(`${own}.ts`);
  };
  const own = names.filter((n) => ownTests(n) && isUnitTest(n));
  const reaches = (test) => {
    const seen = new Set([test]);
    for (const n of seen)
      for (const i of importsOf(n)) if (names.includes(i) && !seen.has(i)) seen.add(i);
    return seen.has(basename(file));
  };
  return (own.length > 0 ? own : names.filter((n) => isUnitTest(n) && reaches(n))).map((n) =>
    join(dir, n),
  );
}

function mutate(files) {
  // vitest.stryker.config.ts adds the rank rule's callers' tests to these.
  const tests = [...new Set(files.flatMap((f) => testsOf(f)))];
  console.log(`mutating ${files.join(', ')}\n  with ${tests.join(', ') || 'no colocated test'}`);
  const run = spawnSync(
    'npx',
    [
      'stryker',
      'run',
      '--mutate',
      files.join(','),
      '--reporters',
      'json,clear-text,progress-append-only',
      '--tempDirName',
      `.stryker-tmp-${process.pid}`,
    ],
    {
      cwd: api,
      stdio: 'inherit',
      env: {
        ...process.env,
        MESHBENCH_TEST_TIER: 'unit',
        MESHBENCH_STRYKER_TESTS: tests.join(','),
        // The rank rules' callers' tests reach only domain/: an ingest file's mutants of
        // module-level constants (which no per-test coverage can narrow) ran them all for nothing.
        MESHBENCH_STRYKER_RANK_TESTS: files.some((f) => f.startsWith('src/domain/')) ? '1' : '0',
        MESHBENCH_STRYKER_REPORT: relative(api, REPORT),
      },
    },
  );
  if (run.status !== 0) throw new Error(`stryker exited ${run.status}`);
  return scoresOf(JSON.parse(readFileSync(REPORT, 'utf8')));
}

const git = (...args) =>
  execFileSync('git', args, { cwd: api, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/** Files under src/ in scope that differ from `commit` (committed since, or uncommitted). */
function changedSince(commit, paths = ['src']) {
  const top = git('rev-parse', '--show-toplevel').trim();
  const names = git('diff', '--name-only', commit, '--', ...paths)
    .split('\n')
    .filter(Boolean);
  return names
    .map((n) => relative(api, join(top, n)))
    .filter((f) => IN_SCOPE.test(f) && existsSync(join(api, f)));
}

const reachable = (commit) => {
  try {
    git('cat-file', '-e', `${commit}^{commit}`);
    return true;
  } catch {
    return false;
  }
};

function readBaseline() {
  if (!existsSync(BASELINE)) return { files: {} };
  const read = JSON.parse(readFileSync(BASELINE, 'utf8'));
  // A baseline from before per-file commits: each file inherits the one commit.
  const { commit = null, measuredAt = null, files = {} } = read;
  return {
    files: Object.fromEntries(
      Object.entries(files).map(([f, s]) => [f, { commit, measuredAt, ...s }]),
    ),
  };
}

/**
 * The baseline with `files` measured at `commit`: each of them records its own commit and time;
 * every other file keeps the commit it was measured at.
 */
export function withScores(baseline, scores, files, commit, measuredAt) {
  const next = { ...baseline.files };
  for (const f of files) next[f] = { commit, measuredAt, ...(scores[f] ?? { score: null }) };
  return {
    files: Object.fromEntries(Object.entries(next).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/**
 * The files with a baseline to mutate again: those changed since their own commit, and those
 * whose commit this clone lacks (a shallow clone) or that record none.
 */
export function heldToCheck(baseline, changedSinceCommit, isReachable) {
  return Object.entries(baseline.files)
    .filter(([f, { commit }]) => !commit || !isReachable(commit) || changedSinceCommit(commit, f))
    .map(([f]) => f);
}

/** The files of `files` whose score is below their baseline's, as "file: was % -> now %". */
export function dropsOf(baselineFiles, scores, files) {
  const drops = [];
  for (const f of files) {
    const was = baselineFiles[f]?.score ?? null;
    const now = scores[f]?.score ?? null;
    if (was !== null && (now === null || now < was - TOLERANCE))
      drops.push(`${f}: ${was} % -> ${now} %`);
  }
  return drops;
}

const args = process.argv.slice(2);
const main = import.meta.url === pathToFileURL(process.argv[1] ?? '').href;
if (!main) {
  // imported (by its test): nothing to run
} else if (args[0] === '--report') {
  console.log(JSON.stringify(scoresOf(JSON.parse(readFileSync(args[1], 'utf8'))), null, 2));
} else if (args[0] === '--update') {
  const baseline = readBaseline();
  const files = args.length > 1 ? args.slice(1) : Object.keys(baseline.files);
  // The baseline is of a commit: the files measured must be as committed.
  const dirty = git('status', '--porcelain', '--', ...files).trim();
  if (dirty) throw new Error(`commit the files to measure first:\n${dirty}`);
  // The commit measured is the one checked out when the run starts (HEAD may move meanwhile).
  const commit = git('rev-parse', 'HEAD').trim();
  const scores = mutate(files);
  // Read again: another measurement may have written its files meanwhile.
  const next = withScores(readBaseline(), scores, files, commit, new Date().toISOString());
  writeFileSync(BASELINE, `${JSON.stringify(next, null, 2)}\n`);
  for (const f of files) console.log(`${f}: ${next.files[f].score} %`);
} else if (args[0] === '--check') {
  const baseline = readBaseline();
  const held = heldToCheck(
    baseline,
    (commit, f) => changedSince(commit, [f]).length > 0,
    reachable,
  );
  // Files in scope with no baseline, changed since the latest measurement: named, not checked.
  const latest = Object.values(baseline.files)
    .filter((s) => s.commit && reachable(s.commit))
    .sort((a, b) => (a.measuredAt ?? '').localeCompare(b.measuredAt ?? ''))
    .at(-1)?.commit;
  const unheld = latest ? changedSince(latest).filter((f) => !(f in baseline.files)) : [];
  if (unheld.length > 0)
    console.log(
      `mutation: changed with no baseline (not checked; add with --update): ${unheld.join(', ')}`,
    );
  if (held.length === 0) {
    console.log('mutation: no file with a baseline changed since the commit it was measured at');
    process.exit(0);
  }
  if (args.includes('--dry')) {
    console.log(`mutation: would mutate ${held.join(', ')}`);
    process.exit(0);
  }
  const scores = mutate(held);
  for (const f of held)
    console.log(`${f}: ${scores[f]?.score ?? null} % (baseline ${baseline.files[f].score} %)`);
  const drops = dropsOf(baseline.files, scores, held);
  if (drops.length > 0) {
    console.error(`mutation score dropped:\n  ${drops.join('\n  ')}`);
    console.error(`Kill the new survivors with a test (${relative(api, REPORT)} lists them).`);
    process.exit(1);
  }
  console.log('mutation: no changed file scores below its baseline');
} else {
  console.error('usage: mutation-score.mjs --check | --update [file...] | --report FILE.json');
  process.exit(2);
}
