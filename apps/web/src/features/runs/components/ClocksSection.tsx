// A run's node clocks: how many nodes reported their clocks and how far off they were, and
// the nodes whose own timestamps prove their clocks behind (an application before its change).
import { useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';
import { formatDurationBound, formatDurationMs } from '../../../charts/prepare/duration.ts';
import { formatCount } from '../../../charts/prepare/format.ts';

/** The provably-off nodes listed; the rest are counted. */
const SHOWN = 10;

export function ClocksSection({ runId }: { runId: string }) {
  const clocks = useQuery({
    queryKey: ['clocks', runId],
    queryFn: ({ signal }) => meshbench.runs.clocks(runId, { signal }),
    enabled: runId !== '',
  });
  const c = clocks.data;
  if (!c || (c.nodes.length === 0 && c.provablyBehind.length === 0)) return null;
  const offsets = c.nodes.flatMap((n) => [n.minOffsetMs, n.maxOffsetMs]);
  const maxError = Math.max(0, ...c.nodes.map((n) => n.maxErrorMs));
  const shown = c.provablyBehind.slice(0, SHOWN);
  return (
    <section className="clocks" data-testid="clocks-section">
      <h2>Clocks</h2>
      {c.nodes.length > 0 ? (
        <p data-testid="clocks-reported">
          {formatCount(c.nodes.length)} nodes reported their clocks: offsets (node minus reference)
          from {formatDurationMs(Math.min(...offsets))} to {formatDurationMs(Math.max(...offsets))},
          each known within {formatDurationBound(maxError, 'upper')}.
        </p>
      ) : (
        <p>No node reported its clock: latencies are as the proxies stamped them.</p>
      )}
      {shown.length > 0 && (
        <>
          <p>
            Provably off: these nodes stamped a first application before its change, so their clocks
            were behind by at least this much.
          </p>
          <div className="table-wrap">
            <table className="data" data-testid="clocks-behind">
              <thead>
                <tr>
                  <th>Node</th>
                  <th className="num">Behind by at least</th>
                  <th>Change</th>
                  <th>Proxy</th>
                  <th>Clock reports</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((b) => (
                  <tr key={b.node}>
                    <td>{b.node}</td>
                    <td className="num">{formatDurationBound(b.behindByAtLeastMs, 'lower')}</td>
                    <td>{b.change}</td>
                    <td>{b.proxy}</td>
                    <td>{b.hasReports ? 'yes (corrected)' : 'none (uncorrected)'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {c.provablyBehind.length > SHOWN && (
            <p>and {formatCount(c.provablyBehind.length - SHOWN)} more nodes.</p>
          )}
        </>
      )}
    </section>
  );
}
