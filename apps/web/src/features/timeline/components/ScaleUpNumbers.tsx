// The numbers a scale-up benchmark quotes (time to x % joined, peak and steady CPU and
// memory, placement rate, pending), beside the timeline charts and their table alternative.
import type { ScaleUpNumber } from '../../../charts/prepare/scale-up.ts';

export function ScaleUpNumbers({ numbers, id }: { numbers: ScaleUpNumber[]; id: string }) {
  if (numbers.length === 0) return null;
  return (
    <div className="scale-up-numbers table-wrap">
      <table className="data compact" id={id} data-testid="scale-up-numbers">
        <caption>Scale-up numbers</caption>
        <thead>
          <tr>
            <th scope="col">Number</th>
            <th scope="col" className="num">
              Value
            </th>
          </tr>
        </thead>
        <tbody>
          {numbers.map((n) => (
            <tr key={n.id} data-testid={`number-${n.id}`}>
              <th scope="row">
                {n.label}
                {n.note && <div className="muted number-note">{n.note}</div>}
              </th>
              <td className="num">{n.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
