// A percentile in a cell: "~" before an estimate, its bound (or "exact") on hover and for
// screen readers, nothing claimed when the API does not say. The decisions are in
// charts/prepare/percentile-accuracy.ts; this only draws them.
import {
  type Accuracy,
  accuracyLegend,
  type Certainty,
  type MarkedPercentile,
  markMsPercentile,
} from '../charts/prepare/percentile-accuracy.ts';

export function MarkedValue({ marked }: { marked: MarkedPercentile }) {
  if (marked.description === null) {
    return <span data-certainty={marked.certainty}>{marked.text}</span>;
  }
  // role img: the value with a text alternative (its bound), read in place of the digits; a
  // span of no role may not carry an aria-label.
  return (
    <span
      role="img"
      className={`pct pct-${marked.certainty}`}
      data-certainty={marked.certainty}
      title={marked.description}
      aria-label={`${marked.value}, ${marked.description}`}
    >
      {marked.mark && (
        <span className="pct-mark" aria-hidden="true">
          {marked.mark}
        </span>
      )}
      {marked.value}
    </span>
  );
}

/** A latency percentile under an "ms" header, from a response's percentile entry. */
export function PercentileValue({
  ms,
  accuracy,
}: {
  ms: number | null | undefined;
  accuracy: Accuracy | null | undefined;
}) {
  return <MarkedValue marked={markMsPercentile(ms, accuracy)} />;
}

/** The line under a table that holds estimates; nothing when it holds none. */
export function AccuracyLegend({ certainties }: { certainties: Iterable<Certainty> }) {
  const text = accuracyLegend(certainties);
  if (text === null) return null;
  return (
    <p className="accuracy-legend" data-testid="accuracy-legend">
      {text}
    </p>
  );
}
