// The thresholds' verdict on the run: passed or failed, and each rule against its baseline.
// Nothing when no threshold applied (GET /gate answers 404).
import type { GateVerdict } from '@meshbench/schema';
import { NO_VALUE } from '../../../charts/prepare/format.ts';
import { ErrorMessage } from '../../../ui/QueryState.tsx';
import { useGate } from '../hooks/use-gate.ts';
import '../gates.css';

const num = (v: number | null) =>
  v === null || !Number.isFinite(v)
    ? NO_VALUE
    : new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(v);

const VERDICT_WORDS = {
  regressed: 'regressed',
  improved: 'improved',
  'no-significant-change': 'no significant change',
  'not-comparable': 'not comparable',
} as const;

/** The statistical verdict of a percentile rule: words, the interval and the noise floor. */
function Significance({ s }: { s: NonNullable<GateVerdict['significance']> }) {
  const ms = (v: number) => `${num(v)} ms`;
  return (
    <div className="gate-significance" data-testid="gate-significance">
      <span className={`gate-stat gate-stat-${s.verdict}`}>{VERDICT_WORDS[s.verdict]}</span>{' '}
      {s.delta !== undefined && s.low !== undefined && s.high !== undefined && (
        <span>
          Δ {s.delta > 0 ? '+' : ''}
          {ms(s.delta)}, {Math.round((s.level ?? 0.95) * 100)} % interval {ms(s.low)} to{' '}
          {ms(s.high)}
        </span>
      )}
      <span className="muted">
        {' '}
        · noise floor{' '}
        {s.noiseFloorMs === null ? 'not measured (no runs labelled repeat)' : ms(s.noiseFloorMs)}
        {s.verdict === 'not-comparable' && ` · ${s.reason}`}
      </span>
    </div>
  );
}

/** A data-plane rule's load steps: each one's verdict, its numbers and why. */
function Steps({ steps }: { steps: NonNullable<GateVerdict['steps']> }) {
  return (
    <ul className="gate-steps" data-testid="gate-steps">
      {steps.map((st) => (
        <li key={JSON.stringify([st.mode, st.connections, st.targetRps])}>
          {st.mode}
          {st.connections !== null && `, ${num(st.connections)} connections`}
          {st.targetRps !== null && `, ${num(st.targetRps)} RPS target`}:{' '}
          <span className={`gate-stat gate-stat-${st.verdict}`}>{VERDICT_WORDS[st.verdict]}</span>{' '}
          <span className="muted">
            {num(st.baselineValue)} → {num(st.current)} · {st.reason}
          </span>
        </li>
      ))}
    </ul>
  );
}

function VerdictRow({ v }: { v: GateVerdict }) {
  return (
    <tr className={v.failed ? 'gate-failed' : 'gate-passed'}>
      <td>
        <code>{v.rule}</code>
      </td>
      <td>
        {v.baseline}
        {v.baselineValue !== null && <span className="muted"> ({num(v.baselineValue)})</span>}
      </td>
      <td className="num">{num(v.current)}</td>
      <td className="num">{num(v.bound)}</td>
      <td>
        <strong>{v.failed ? 'failed' : 'passed'}</strong> <span className="muted">{v.reason}</span>
        {v.significance && <Significance s={v.significance} />}
        {v.steps && v.steps.length > 0 && <Steps steps={v.steps} />}
      </td>
    </tr>
  );
}

export function GateSection({ runId, gated }: { runId: string; gated?: boolean | undefined }) {
  const gate = useGate(runId, gated);
  if (gate.isError) return <ErrorMessage error={gate.error} what="the gate verdict" />;
  if (!gate.data) return null;
  const g = gate.data;
  return (
    <section
      className={`gate-box ${g.passed ? 'gate-box-passed' : 'gate-box-failed'}`}
      data-testid="gate-section"
    >
      <header>
        <strong data-testid="gate-verdict">Gate {g.passed ? 'passed' : 'failed'}</strong>{' '}
        <span className="muted">
          {g.verdicts.length} rule{g.verdicts.length === 1 ? '' : 's'} · evaluated{' '}
          {new Date(g.evaluatedAt).toISOString().replace('T', ' ').slice(0, 19)} UTC
        </span>
      </header>
      {g.verdicts.length > 0 && (
        <table className="data compact gate-table">
          <thead>
            <tr>
              <th>Rule</th>
              <th>Baseline</th>
              <th className="num">Current</th>
              <th className="num">Bound</th>
              <th>Verdict</th>
            </tr>
          </thead>
          <tbody>
            {g.verdicts.map((v, i) => (
              <VerdictRow key={`${v.rule}-${i}`} v={v} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
