// One small chart per mode, a line per run, all on the same axes: the compared runs' latency
// (or error rate) without nine overlaid lines.
import type { ModeMultiple } from '../../../charts/prepare/load-multiples.ts';
import { SeriesLineChart } from '../../../charts/SeriesLineChart.tsx';

export function ModeMultiples({
  testId,
  multiples,
  xLabel,
  formatX,
  formatXTick,
  formatY,
  formatYTick,
  yWidth = 48,
}: {
  testId: string;
  multiples: ModeMultiple[];
  xLabel: string;
  formatX: (x: number) => string;
  formatXTick: (x: number) => string;
  formatY: (y: number) => string;
  formatYTick: (y: number) => string;
  yWidth?: number;
}) {
  return (
    <div className="mode-multiples" data-testid={testId}>
      {multiples.map((m) => (
        <figure
          key={m.mode}
          className="mode-multiple"
          data-testid="mode-multiple"
          data-mode={m.mode}
        >
          <figcaption>{m.mode}</figcaption>
          {m.lines ? (
            <SeriesLineChart
              lines={m.lines}
              xLabel={xLabel}
              formatX={formatX}
              formatXTick={formatXTick}
              formatY={formatY}
              formatYTick={formatYTick}
              height={210}
              yWidth={yWidth}
            />
          ) : (
            <p className="state">No run has a value in this mode.</p>
          )}
        </figure>
      ))}
    </div>
  );
}
