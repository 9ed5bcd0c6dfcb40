// What sets the tail apart, from an attribution already in hand: the lead sentence naming
// the most over-represented value, then the ranked values (a view; TailPanel fetches).
import type { TailAttribution } from '@meshbench/schema';
import { formatCount, formatPercent } from '../../../charts/prepare/format.ts';
import { tailClockNote } from '../../../charts/prepare/tail.ts';
import {
  attributionSentence,
  cutPhrase,
  formatLift,
  standsOut,
} from '../../../charts/prepare/tail-attribution.ts';

export function TailAttributionView({ attribution }: { attribution: TailAttribution }) {
  const lead = standsOut(attribution);
  return (
    <section className="tail-attribution" data-testid="tail-attribution">
      <h4 className="tail-attribution-head" data-testid="tail-attribution-cut">
        What sets the tail apart: the {formatCount(attribution.tailCount)} proxies{' '}
        {cutPhrase(attribution)} against the rest
      </h4>
      <p className="muted" data-testid="tail-attribution-clock" data-clock={attribution.clock}>
        Counted on {tailClockNote(attribution)}.
      </p>
      <p
        className={lead ? 'tail-attribution-lead' : 'tail-attribution-lead muted'}
        data-testid="tail-attribution-sentence"
      >
        {attributionSentence(attribution)}
      </p>
      {lead && (
        <div className="table-wrap">
          <table className="data compact" data-testid="tail-attribution-table">
            <thead>
              <tr>
                <th>Attribute</th>
                <th>Value</th>
                <th className="num">In tail</th>
                <th className="num">Overall</th>
                <th className="num">Share of tail</th>
                <th className="num">Lift</th>
              </tr>
            </thead>
            <tbody>
              {attribution.values.map((v) => (
                <tr key={`${v.attribute}\u0000${v.value}`} data-testid="tail-attribution-row">
                  <td>{v.attribute}</td>
                  <td className="mono">{v.value}</td>
                  <td className="num">{formatCount(v.inTail)}</td>
                  <td className="num">{formatCount(v.overall)}</td>
                  <td className="num">{formatPercent(v.share)}</td>
                  <td className="num">{formatLift(v.lift)} ×</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted" data-testid="tail-attribution-note">
        Ranked by excess share, a value&apos;s share of the tail minus its share of all{' '}
        {formatCount(attribution.total)} proxies (what it covers beyond its size); lift is the ratio
        of the two (exact counts of first applications). Values on fewer than{' '}
        {formatCount(attribution.minTailCount)} tail proxies are not ranked.
      </p>
    </section>
  );
}
