// The gate's Markdown summary: for a pull-request comment or GITHUB_STEP_SUMMARY.

import { higherIsBetter, type Metrics, type Verdict } from '@meshbench/gates';
import type { GateStep, GateVerdict, Metric, SignificanceAnswer } from '@meshbench/schema';

/** A rule's verdict, with the server's significance test when the rule has one. */
export type GateLine = Verdict & { significance?: SignificanceAnswer };

const WORDS = {
  regressed: 'regressed',
  improved: 'improved',
  'no-significant-change': 'no significant change',
  'not-comparable': '⚠️ not comparable',
} as const;

const fmt = (metric: Metric, v: number | null) => {
  if (v === null) return 'n/a';
  if (metric === 'within1s') return `${v.toFixed(1)} %`;
  if (metric === 'missing') return String(v);
  return v >= 10_000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(1)} ms`;
};

function delta(metric: Metric, current: number | null, baseline: number | null): string {
  if (current === null || baseline === null) return '';
  const d = current - baseline;
  const unit = metric === 'within1s' ? ' pp' : metric === 'missing' ? '' : ' ms';
  const pct = baseline !== 0 ? ` (${d >= 0 ? '+' : ''}${((d / baseline) * 100).toFixed(1)} %)` : '';
  const better = higherIsBetter(metric) ? d > 0 : d < 0;
  const mark = d === 0 ? '' : better ? ' ✅' : ' 🔺';
  return `${d >= 0 ? '+' : ''}${Number(d.toFixed(2))}${unit}${pct}${mark}`;
}

export interface Summary {
  title: string;
  baselineLabel: string;
  /** null: only data-plane rules, the run's propagation not read. */
  current: Metrics | null;
  baseline: Metrics | null;
  verdicts: GateLine[];
  /** Data-plane rules (load.p99>+10%): the server's verdict, step by step. */
  loadVerdicts?: GateVerdict[] | undefined;
  compareUrl?: string | undefined;
  /** Why the run and its baseline run cannot be compared (the compare page's warnings). */
  notComparable?: string[] | undefined;
}

const notComparable = (v: GateLine) => v.significance?.verdict === 'not-comparable';
/** A rule's cell: failed, passed, or passed only because the runs could not be compared. */
const mark = (v: GateLine) => (v.failed ? '❌' : notComparable(v) ? '⚠️' : '✅');

const stepName = (st: GateStep) =>
  [
    st.mode,
    ...(st.connections !== null ? [`${st.connections} conn`] : []),
    ...(st.targetRps !== null ? [`${st.targetRps} RPS`] : []),
  ].join(', ');
const num = (v: number | null) =>
  v === null ? 'n/a' : v.toLocaleString('en-US', { maximumFractionDigits: 3 });
const loadMark = (v: GateVerdict | GateStep) =>
  v.failed ? '❌' : v.verdict === 'not-comparable' ? '⚠️' : '✅';
/** Markdown table cells hold no pipes or line breaks. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The data-plane rules: a line per rule, a row per load step with its verdict and why. */
function loadLines(verdicts: GateVerdict[]): string[] {
  if (verdicts.length === 0) return [];
  const lines = ['', '**Data plane**, at each load step:', ''];
  lines.push('| rule | step | baseline | current | verdict |', '| --- | --- | ---: | ---: | --- |');
  for (const v of verdicts) {
    if (!v.steps || v.steps.length === 0) {
      lines.push(`| \`${v.rule}\` | | | | ${loadMark(v)} ${cell(v.reason)} |`);
      continue;
    }
    for (const st of v.steps)
      lines.push(
        `| \`${v.rule}\` | ${stepName(st)} | ${num(st.baselineValue)} | ${num(st.current)} | ${loadMark(st)} ${st.verdict.replace(/-/g, ' ')}: ${cell(st.reason)} |`,
      );
  }
  for (const v of verdicts)
    lines.push(
      '',
      `- ${loadMark(v)} \`${v.rule}\`: ${(v.verdict ?? 'not-comparable').replace(/-/g, ' ')}: ${v.reason}`,
    );
  return lines;
}

export function markdownSummary(s: Summary): string {
  const loads = s.loadVerdicts ?? [];
  const failed = s.verdicts.filter((v) => v.failed);
  const failedCount = failed.length + loads.filter((v) => v.failed).length;
  const total = s.verdicts.length + loads.length;
  const head =
    failedCount > 0
      ? `❌ ${failedCount} of ${total} rules failed`
      : total > 0
        ? `✅ all ${total} rules passed`
        : 'no rules given';
  const untested =
    s.verdicts.filter(notComparable).length +
    loads.filter((v) => !v.failed && v.verdict === 'not-comparable').length;
  const lines = [
    `### meshbench: ${s.title}`,
    '',
    `${head}${untested > 0 ? ` (⚠️ ${untested} not comparable)` : ''} · baseline: ${s.baselineLabel}`,
    '',
  ];
  if (s.notComparable?.length) {
    lines.push('**⚠️ Not comparable with the baseline:**', '');
    for (const reason of s.notComparable) lines.push(`- ${reason}`);
    lines.push('');
  }
  if (s.current) {
    const current = s.current;
    lines.push(
      '| metric | baseline | current | delta | verdict |',
      '| --- | ---: | ---: | ---: | --- |',
    );
    const ruled = new Map(s.verdicts.map((v) => [v.rule.metric, v]));
    for (const metric of ['p50', 'p90', 'p96', 'p99', 'p99.9', 'within1s', 'missing'] as Metric[]) {
      const verdicts = s.verdicts.filter((v) => v.rule.metric === metric);
      const verdict =
        verdicts.length === 0 ? '' : verdicts.map((v) => `${mark(v)} \`${v.rule.text}\``).join(' ');
      const base = s.baseline ? s.baseline[metric] : null;
      lines.push(
        `| ${metric} | ${fmt(metric, base)} | ${fmt(metric, current[metric])} | ${delta(metric, current[metric], base)} | ${verdict} |`,
      );
      ruled.delete(metric);
    }
    for (const v of ruled.values()) {
      lines.push(
        `| ${v.rule.metric} | ${fmt(v.rule.metric, v.baseline)} | ${fmt(v.rule.metric, v.current)} | ${delta(v.rule.metric, v.current, v.baseline)} | ${mark(v)} \`${v.rule.text}\` |`,
      );
    }
  }
  for (const v of failed) lines.push('', `- \`${v.rule.text}\`: ${v.reason}`);
  const tested = s.verdicts.filter((v) => v.significance);
  if (tested.length > 0) lines.push('');
  for (const v of tested) {
    const sig = v.significance as SignificanceAnswer;
    const floor =
      sig.noiseFloorMs === null ? 'noise floor not measured' : `noise floor ${sig.noiseFloorMs} ms`;
    lines.push(`- \`${v.rule.text}\`: ${WORDS[sig.verdict]}: ${sig.reason} (${floor})`);
  }
  lines.push(...loadLines(loads));
  if (s.compareUrl) lines.push('', `[Open the comparison](${s.compareUrl})`);
  return `${lines.join('\n')}\n`;
}

/**
 * GitHub's limits: a PR comment's body 65,536 characters, a check run's output text 65,535,
 * a job summary 1 MiB. What the CLI prints fits the smaller two, so it can go in either.
 */
export const GITHUB_COMMENT_LIMIT = 65_535;
export const GITHUB_STEP_SUMMARY_LIMIT = 1024 * 1024;

/**
 * The Markdown cut at a line so that it fits `limit` characters, with a last line saying how
 * many lines were left out and where the whole is; as it is when it fits.
 */
export function fitMarkdown(md: string, limit: number, moreAt?: string): string {
  if (md.length <= limit) return md;
  const lines = md.split('\n');
  const note = (left: number) =>
    `\n_… ${left} more line${left === 1 ? '' : 's'} left out to fit ${limit.toLocaleString('en-US')} characters${moreAt ? `: ${moreAt}` : ''}_\n`;
  let kept = '';
  let i = 0;
  for (; i < lines.length; i++) {
    const next = `${kept}${lines[i]}\n`;
    if (next.length + note(lines.length - i - 1).length > limit) break;
    kept = next;
  }
  return `${kept}${note(lines.length - i)}`;
}
