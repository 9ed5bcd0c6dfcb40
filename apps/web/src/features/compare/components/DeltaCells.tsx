// The parts the compare's delta tables share: the head (one group of columns per run, the
// baseline's value alone, every other run's value, Δ and Δ %) and one run's cells of a row.
import type { ReactNode } from 'react';
import { FROM_ESTIMATE } from '../../../charts/prepare/percentile-accuracy.ts';
import { MarkedValue } from '../../../ui/PercentileValue.tsx';
import type { ComparedRun } from '../prepare/compared-runs.ts';
import type { DeltaCell } from '../prepare/deltas.ts';

/** The table's head: `lead` is the row labels' header cells (each spanning both rows). */
export function DeltaHead({ runs, lead }: { runs: ComparedRun[]; lead: ReactNode }) {
  return (
    <thead>
      <tr>
        {lead}
        {runs.map((r, i) => (
          <th
            key={r.key}
            colSpan={i === 0 ? 1 : 3}
            className="run-head"
            style={{ borderTopColor: r.style.color }}
          >
            <span className="mesh-swatch" style={{ background: r.style.color }} />
            {r.label}
            {i === 0 && <span className="baseline-tag"> baseline</span>}
          </th>
        ))}
      </tr>
      <tr>
        {runs.map((r, i) =>
          i === 0 ? (
            <th key={r.key} className="num">
              value
            </th>
          ) : (
            [
              <th key={`${r.key}-v`} className="num group-start">
                value
              </th>,
              <th key={`${r.key}-a`} className="num">
                Δ
              </th>,
              <th key={`${r.key}-r`} className="num">
                Δ %
              </th>,
            ]
          ),
        )}
      </tr>
    </thead>
  );
}

/**
 * One run's cells of a row: the baseline's (`baseline`) its value alone, another run's its
 * value, difference and relative difference, each difference in the colour of its verdict as shown.
 * `testId` names the cells `cmp-value-<testId>`, `cmp-abs-<testId>`, `cmp-rel-<testId>`.
 */
export function DeltaCells({
  cell,
  baseline,
  testId,
}: {
  cell: DeltaCell;
  baseline: boolean;
  testId?: string;
}) {
  const value = cell.marked ? <MarkedValue marked={cell.marked} /> : cell.value;
  const id = (part: string) => (testId === undefined ? undefined : `cmp-${part}-${testId}`);
  if (baseline) {
    return (
      <td className="num" data-testid={id('value')}>
        {value}
      </td>
    );
  }
  const title =
    [cell.fromEstimate ? FROM_ESTIMATE : '', cell.why ?? ''].filter(Boolean).join('; ') ||
    undefined;
  const tone = (verdict: DeltaCell['verdict']) => (verdict ? `delta-${verdict}` : '');
  return (
    <>
      <td className="num group-start" data-testid={id('value')}>
        {value}
      </td>
      <td
        className={`num ${tone(cell.verdict)}`}
        data-testid={id('abs')}
        data-verdict={cell.verdict ?? undefined}
        title={title}
      >
        {cell.abs}
      </td>
      <td
        className={`num ${tone(cell.relVerdict)}`}
        data-testid={id('rel')}
        data-verdict={cell.relVerdict ?? undefined}
        title={title}
      >
        {cell.rel}
      </td>
    </>
  );
}
