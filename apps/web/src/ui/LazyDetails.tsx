// A fold whose content is drawn only once it is opened (and kept after): a churn run's
// per-change detail in a report is a histogram, a curve and a tail table per change, too much
// to lay out (or print) for every change of a run with many. Closed, only its summary prints.
import { type ReactNode, useState } from 'react';

export function LazyDetails({
  summary,
  children,
  className,
  testId,
}: {
  summary: ReactNode;
  /** Drawn at the first opening, not before. */
  children: () => ReactNode;
  className?: string;
  testId?: string;
}) {
  const [opened, setOpened] = useState(false);
  return (
    <details
      className={className}
      data-testid={testId}
      onToggle={(e) => {
        if (e.currentTarget.open) setOpened(true);
      }}
    >
      <summary>{summary}</summary>
      {opened && children()}
    </details>
  );
}
