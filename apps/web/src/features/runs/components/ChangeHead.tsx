// A change's title and what its propagation came to. A view: the run page's change sections
// and a report's frozen ones.
import type { Change, Propagation } from '@meshbench/schema';
import type { ReactNode } from 'react';
import {
  formatCount,
  formatDuration,
  formatPercent,
  formatTimestamp,
} from '../../../charts/prepare/format.ts';

export function ChangeHead({
  change,
  propagation: p,
  frozen = false,
  children,
}: {
  change: Pick<Change, 'id' | 'kind' | 'target' | 'action' | 'at'>;
  /** Absent while it loads: the title stands alone. */
  propagation?: Propagation | undefined;
  /** A report's change: a title under its run's. */
  frozen?: boolean;
  /** Below the summary (the run page's export links). */
  children?: ReactNode;
}) {
  const Title = frozen ? 'h3' : 'h2';
  return (
    <header className="change-head">
      <Title className={frozen ? 'change-title' : undefined}>
        <span className="change-kind">{change.kind}</span> {change.target}{' '}
        <span className="change-action">{change.action}</span>
      </Title>
      <p className="muted">
        Change <code>{change.id}</code> at {formatTimestamp(change.at)}
        {p && (
          <>
            {' '}
            — {formatCount(p.count)}
            {p.expected !== null && ` of ${formatCount(p.expected)}`} proxies{' '}
            {p.stage === 'applied' ? 'applied it' : `reached ${p.stage}`},{' '}
            <strong>
              {formatPercent(p.withinFraction)} within {formatDuration(p.withinMs)}
            </strong>
          </>
        )}
      </p>
      {children}
    </header>
  );
}
