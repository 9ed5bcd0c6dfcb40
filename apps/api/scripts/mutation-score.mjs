// Mutation scores per file, held to a committed baseline (issue 28): CI fails when a changed
// file's Stryker score drops below its baseline. A whole run of domain/ and the decoders takes
// far longer than CI can give (thousands of mutants on 2 cores), so the check mutates only the
// files changed since the commit the baseline was measured at (`git diff`, the working tree
// included), with their colocated tests and the rank rules' callers' tests.
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
const REPORT = join(api, 'reports/mutation/changed.json');
/** What may be mutated: domain/ and the decoders, not their tests. */
const IN_SCOPE = /^src\/(domain|ingest)\/.*(?<!\.test|\.test-fixtures|\.entry)\.ts$/;
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

/**
 * The colocated tests of a file: x.ts -> x.test.ts and x.*.test.ts beside it, and x-y.test.ts
 * when there is no x-y.ts (hdr.ts's hdr-bounds.test.ts); unit only.
 */
export function testsOf(file, names = readdirSync(join(api, dirname(file)))) {
  const dir = dirname(file);
  const stem = basename(file, '.ts');
  const ownTests = (n) => {
    if (n.startsWith(`${stem}.`)) return true;
    if (!n.startsWith(`${stem}-`)) return false;
    // x-y.test.ts and x-y.z.test.ts are x-y.ts's when that file exists.
    const own = n.slice(0, n.indexOf('.'));
    return !names.includes(`${own}.ts`);
  };
  return names
    .filter(
      (n) => ownTests(n) && n.endsWith('.test.ts') && !/\.(int|faults|medium)\.test\.ts$/.test(n),
    )
    .map((n) => join(dir, n));
}

function mutate(files) {
  // vitest.stryker.config.ts adds the rank rule's callers' tests to these.
  const tests = [...new Set(files.flatMap((f) => testsOf(f)))];
  console.log(`mutating ${files.join(', ')}\n  with ${tests.join(', ') || 'no colocated test'}`);
  const run = spawnSync(
    'npx',
    ['stryker', 'run', '--mutate', files.join(','), '--reporters', 'json,clear-text'],
    {
      cwd: api,
      stdio: 'inherit',
      env: {
        ...process.env,
        MESHBENCH_TEST_TIER: 'unit',
        MESHBENCH_STRYKER_TESTS: tests.join(','),
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
function changedSince(commit) {
  const top = git('rev-parse', '--show-toplevel').trim();
  const names = git('diff', '--name-only', commit, '--', 'src').split('\n').filter(Boolean);
  return names
    .map((n) => relative(api, join(top, n)))
    .filter((f) => IN_SCOPE.test(f) && existsSync(join(api, f)));
}

function readBaseline() {
  return existsSync(BASELINE)
    ? JSON.parse(readFileSync(BASELINE, 'utf8'))
    : { commit: null, measuredAt: null, files: {} };
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
  const scores = mutate(files);
  for (const f of files) baseline.files[f] = scores[f] ?? { score: null };
  baseline.commit = git('rev-parse', 'HEAD').trim();
  baseline.measuredAt = new Date().toISOString();
  baseline.files = Object.fromEntries(
    Object.entries(baseline.files).sort(([a], [b]) => a.localeCompare(b)),
  );
  writeFileSync(BASELINE, `${JSON.stringify(baseline, null, 2)}\n`);
  for (const f of files) console.log(`${f}: ${baseline.files[f].score} %`);
} else if (args[0] === '--check') {
  const baseline = readBaseline();
  let since = baseline.commit;
  try {
    if (since) git('cat-file', '-e', `${since}^{commit}`);
  } catch {
    since = null;
  }
  // Without the baseline's commit (a shallow clone), every file with a baseline is checked.
  const changed = since ? changedSince(since) : Object.keys(baseline.files);
  const held = changed.filter((f) => f in baseline.files);
  const unheld = changed.filter((f) => !(f in baseline.files));
  if (unheld.length > 0)
    console.log(
      `mutation: changed with no baseline (not checked; add with --update): ${unheld.join(', ')}`,
    );
  if (held.length === 0) {
    console.log(`mutation: no file with a baseline changed since ${since ?? '(no commit)'}`);
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
    console.error('Kill the new survivors with a test (reports/mutation/changed.json lists them).');
    process.exit(1);
  }
  console.log('mutation: no changed file scores below its baseline');
} else {
  console.error('usage: mutation-score.mjs --check | --update [file...] | --report FILE.json');
  process.exit(2);
}
