// One change compared across runs: the percentile table with its differences, the overlaid
// convergence curves, the histograms as small multiples and the tail causes. It draws what
// it is given: live queries (the compare page) or a frozen snapshot (a report).
import type {
  Change,
  HistogramScale,
  PercentileDifferenceAnswer,
  Propagation,
  ReportTail,
} from '@meshbench/schema';
import { formatCount, formatTimestamp } from '../../../charts/prepare/format.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import type { ComparedRun } from '../prepare/compared-runs.ts';
import type { ChangePair } from '../prepare/pair-changes.ts';
import { CdfOverlayPanel } from './CdfOverlayPanel.tsx';
import { DeltaTable } from './DeltaTable.tsx';
import { HistogramMultiples, type HistogramSource } from './HistogramMultiples.tsx';
import { TailSharesPanel } from './TailSharesPanel.tsx';

export interface ChangeComparisonData {
  /** One per run: undefined while it loads, null for a run without this change. */
  summaries: (Propagation | null | undefined)[];
  summaryError?: unknown;
  /**
   * Per run, its percentiles' differences from the baseline's with their bootstrap intervals
   * (undefined: none, or not in yet); what colours a percentile's difference.
   */
  intervals?: (readonly PercentileDifferenceAnswer[] | undefined)[];
  intervalError?: unknown;
  /** The live page is still reading the intervals: percentiles stay uncoloured till then. */
  intervalsPending?: boolean;
  histograms: (HistogramSource | null | undefined)[];
  histogramScale: HistogramScale;
  onHistogramScale: (scale: HistogramScale) => void;
  histogramsBusy?: boolean;
  histogramError?: unknown;
  histogramNote?: string;
  /** A report's tails may predate the cut and the causes' descriptions. */
  tails: (ReportTail | null | undefined)[];
  tailError?: unknown;
  /** Per run, its causes table as CSV (live pages only). */
  tailCsvUrls?: (string | null)[];
}

export function ChangeComparison({
  runs,
  pair,
  data,
}: {
  runs: ComparedRun[];
  pair: ChangePair<Pick<Change, 'id' | 'kind' | 'target' | 'action' | 'at' | 'expected'>>;
  data: ChangeComparisonData;
}) {
  const first = pair.changes.find((c) => c !== null);
  const loading = data.summaries.some((s) => s === undefined);
  const summaries = data.summaries.map((s) => s ?? null);
  return (
    <section className="compare-section change" data-testid="change-comparison">
      <header className="section-head">
        <div>
          <h2>
            {first && (
              <>
                <span className="change-kind">{first.kind}</span> {first.target}{' '}
                <span className="change-action">{first.action}</span>
              </>
            )}
          </h2>
          <p className="muted">
            {pair.matchedBy === 'id' ? (
              <>
                Change <code>{pair.title}</code>
              </>
            ) : (
              <>
                Changes <code>{pair.title}</code>, paired as the first change of each run
              </>
            )}
            {pair.changes.map((c, i) =>
              c ? (
                <span key={runs[i]?.key ?? i}>
                  {' · '}
                  {runs[i]?.label} at {formatTimestamp(c.at)}
                  {c.expected !== null && `, ${formatCount(c.expected)} proxies`}
                </span>
              ) : (
                <span key={runs[i]?.key ?? i}>
                  {' · '}
                  {runs[i]?.label}: no such change
                </span>
              ),
            )}
          </p>
        </div>
      </header>
      {data.summaryError ? (
        <ErrorMessage error={data.summaryError} what="the propagation summaries" />
      ) : loading ? (
        <Loading what="propagation" />
      ) : (
        <>
          <DeltaTable
            runs={runs}
            summaries={summaries}
            intervals={data.intervals ?? []}
            intervalError={data.intervalError}
            intervalsPending={data.intervalsPending ?? false}
          />
          <div className="compare-grid">
            <CdfOverlayPanel
              runs={runs}
              cdfs={summaries.map((s) => s?.cdf ?? null)}
              withinMs={summaries.find((s) => s)?.withinMs}
            />
            <TailSharesPanel
              runs={runs}
              tails={data.tails}
              error={data.tailError}
              csvUrls={data.tailCsvUrls ?? []}
            />
          </div>
          <HistogramMultiples
            runs={runs}
            histograms={data.histograms}
            scale={data.histogramScale}
            onScale={data.onHistogramScale}
            busy={data.histogramsBusy ?? false}
            error={data.histogramError}
            {...(data.histogramNote ? { note: data.histogramNote } : {})}
          />
        </>
      )}
    </section>
  );
}
