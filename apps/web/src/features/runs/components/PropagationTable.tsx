// The numbers a propagation benchmark quotes: who applied the change, and how fast.
import type { Propagation } from '@meshbench/schema';
import { clockBound, correctionNote } from '../../../charts/prepare/clock-correction.ts';
import {
  formatCount,
  formatDuration,
  formatDurationMs,
  formatPercent,
} from '../../../charts/prepare/format.ts';
import { type Accuracy, certaintyOf } from '../../../charts/prepare/percentile-accuracy.ts';
import { AccuracyLegend, PercentileValue } from '../../../ui/PercentileValue.tsx';
import { useNarrow } from '../../../ui/use-narrow.ts';

/** "99.9" -> "p99-9": a test id without a dot. */
export const percentileTestId = (p: number) => `pct-p${String(p).replace('.', '-')}`;

/** What the table calls the proxies of a stage: "Applied", as before stages; else its name. */
export function stageLabel(stage: string): string {
  return stage === 'applied' ? 'Applied' : `${stage.charAt(0).toUpperCase()}${stage.slice(1)}`;
}

export function PropagationTable({ propagation: p }: { propagation: Propagation }) {
  const narrow = useNarrow();
  const applied = p.stage === 'applied';
  const counts = [
    {
      id: 'stat-count',
      label: stageLabel(p.stage),
      value: formatCount(p.count),
      title: applied
        ? 'distinct proxies that applied the change'
        : `distinct proxies seen at stage ${p.stage}`,
    },
    {
      id: 'stat-expected',
      label: 'Expected',
      value: formatCount(p.expected),
      title: 'proxies that must apply it',
    },
    {
      id: 'stat-missing',
      label: 'Missing',
      value: formatCount(p.missing),
      title: 'expected proxies that never applied it',
    },
    {
      id: 'stat-within',
      label: `Within ${formatDuration(p.withinMs)}`,
      value: formatPercent(p.withinFraction),
      title: `${formatCount(p.withinCount)} proxies applied it within ${formatDuration(p.withinMs)}`,
    },
    {
      id: 'stat-before-change',
      label: 'Before change',
      value: formatCount(p.beforeChange),
      title: 'first applications stamped before the change (clock skew)',
    },
    {
      id: 'stat-repeats',
      label: 'Repeats',
      value: formatCount(p.repeats),
      title: 'observations after a proxy first applied it',
    },
  ];
  // Min, mean and max are plain values; the percentiles say how they were obtained.
  const latencies: { id: string; label: string; ms: number | null; accuracy?: Accuracy }[] = [
    { id: 'stat-min', label: 'Min', ms: p.minMs },
    ...p.percentiles.map((x) => ({
      id: percentileTestId(x.p),
      label: `P${x.p}`,
      ms: x.ms,
      accuracy: x,
    })),
    { id: 'stat-mean', label: 'Mean', ms: p.meanMs },
    { id: 'stat-max', label: 'Max', ms: p.maxMs },
  ];
  // With clock reports, the corrected figures in a second row, under the raw ones.
  const brief = p.clock?.basis === 'raw' ? p.clock.corrected : null;
  const maxError = p.clock?.maxClockErrorMs ?? null;
  const correctedCounts: Record<string, string> = brief
    ? {
        'stat-within': formatPercent(brief.withinFraction),
        'stat-before-change': formatCount(brief.beforeChange),
      }
    : {};
  // The value, and its bound under it in small type: the column keeps its width.
  const withBound = (ms: number | null, errorMs: number | null) => (
    <>
      {formatDurationMs(ms)}
      {ms !== null && errorMs !== null && (
        <span className="clock-bound">{clockBound(errorMs)}</span>
      )}
    </>
  );
  const correctedLatency = (id: string, i: number) => {
    if (!brief) return null;
    if (id === 'stat-min') return withBound(brief.minMs, maxError);
    if (id === 'stat-max') return withBound(brief.maxMs, maxError);
    const pct = brief.percentiles[i - 1];
    return pct ? withBound(pct.ms, pct.clockErrorMs ?? maxError) : null;
  };
  const note = brief || p.clock?.pending ? correctionNote(p.clock) : null;
  const timeTitle = applied ? 'Time to apply' : `Time until ${p.stage}`;
  const countCells = counts.map((c) => (
    <td key={c.id} className="num" data-testid={c.id}>
      {c.value}
    </td>
  ));
  const latencyCells = latencies.map((l, i) => (
    <td key={l.id} className={i === 0 ? 'num group-start' : 'num'} data-testid={l.id}>
      {l.accuracy ? <PercentileValue ms={l.ms} accuracy={l.accuracy} /> : formatDurationMs(l.ms)}
    </td>
  ));
  const correctedLatencyCells = latencies.map((l, i) => (
    <td
      key={l.id}
      className={i === 0 ? 'num group-start' : 'num'}
      data-testid={`corrected-${l.id}`}
    >
      {correctedLatency(l.id, i)}
    </td>
  ));
  // Applied, expected and missing do not change with clocks: the row's label.
  const correctedLabel = (span: number) => (
    <th
      scope="row"
      colSpan={span}
      className="corrected-label"
      title="each node's clock offset taken out (its clock reports)"
    >
      clock-corrected
    </th>
  );
  const correctedCountCells = counts.slice(3).map((c) => (
    <td key={c.id} className="num" data-testid={`corrected-${c.id}`}>
      {correctedCounts[c.id] ?? ''}
    </td>
  ));
  const countHeads = counts.map((c) => (
    <th key={c.id} className="num" title={c.title}>
      {c.label}
    </th>
  ));
  const latencyHeads = latencies.map((l, i) => (
    <th key={l.id} className={i === 0 ? 'num group-start' : 'num'}>
      {l.label}
    </th>
  ));
  return (
    <div className="table-wrap">
      {narrow ? (
        // A narrow window: the proxies, then the times a row per percentile (raw and
        // clock-corrected side by side), so that P99 is in view without scrolling sideways.
        <>
          <table className="data stat-table" data-testid="percentile-table">
            <thead>
              <tr className="group-row">
                <th colSpan={counts.length}>Proxies</th>
              </tr>
              <tr>{countHeads}</tr>
            </thead>
            <tbody>
              <tr>{countCells}</tr>
              {brief && (
                <tr data-testid="corrected-row">
                  {correctedLabel(3)}
                  {correctedCountCells}
                </tr>
              )}
            </tbody>
          </table>
          <table className="data stat-table latency-rows" data-testid="latency-table">
            <thead>
              <tr>
                <th>{timeTitle}</th>
                <th className="num">{brief ? 'raw' : ''}</th>
                {brief && <th className="num">clock-corrected</th>}
              </tr>
            </thead>
            <tbody>
              {latencies.map((l, i) => (
                <tr key={l.id}>
                  <th scope="row">{l.label}</th>
                  {latencyCells[i]}
                  {brief && correctedLatencyCells[i]}
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : (
        <table className="data stat-table" data-testid="percentile-table">
          <thead>
            <tr className="group-row">
              <th colSpan={counts.length}>Proxies</th>
              <th colSpan={latencies.length} className="group-start">
                {timeTitle}
              </th>
            </tr>
            <tr>
              {countHeads}
              {latencyHeads}
            </tr>
          </thead>
          <tbody>
            <tr>
              {countCells}
              {latencyCells}
            </tr>
            {brief && (
              <tr data-testid="corrected-row">
                {correctedLabel(3)}
                {correctedCountCells}
                {correctedLatencyCells}
              </tr>
            )}
          </tbody>
        </table>
      )}
      <CoverageTable propagation={p} />
      {note && (
        <p className="accuracy-legend" data-testid="clock-note">
          {note}
        </p>
      )}
      <AccuracyLegend certainties={p.percentiles.map(certaintyOf)} />
    </div>
  );
}

/** Time until a share of the proxies had the change: the benchmark's "96.6 % within 1 s" turned round. */
function CoverageTable({ propagation: p }: { propagation: Propagation }) {
  const { coverage } = p;
  if (coverage.points.length === 0) return null;
  const of = coverage.of === 'expected' ? 'expected' : 'seen';
  return (
    <table className="data stat-table coverage-table" data-testid="coverage-table">
      <thead>
        <tr className="group-row">
          <th colSpan={coverage.points.length}>
            Time until this share of the {formatCount(coverage.base)} {of} proxies
            {p.stage === 'applied' ? ' applied it' : ` reached ${p.stage}`} (exact)
          </th>
        </tr>
        <tr>
          {coverage.points.map((c) => (
            <th key={c.percent} className="num" title={`${formatCount(c.proxies)} proxies`}>
              {c.percent} %
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        <tr>
          {coverage.points.map((c) => (
            <td
              key={c.percent}
              className="num"
              data-testid={`coverage-${String(c.percent).replace('.', '-')}`}
              title={
                c.ms === null
                  ? `fewer than ${formatCount(c.proxies)} proxies got there`
                  : `when proxy ${formatCount(c.proxies)} (in order of arrival) got there`
              }
            >
              {c.ms === null ? 'never' : formatDurationMs(c.ms)}
            </td>
          ))}
        </tr>
      </tbody>
    </table>
  );
}
