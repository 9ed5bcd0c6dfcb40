// The x axis every timeline chart shares: time since the run started, ticks on round
// offsets, labelled to the resolution the domain needs.
import type { XAxisProps } from 'recharts';
import { formatAxisTime, timeTicks } from './prepare/timeline.ts';
import { TIMELINE_TICK } from './theme.ts';

export function timeAxisProps(domain: [number, number]): XAxisProps {
  const span = domain[1] - domain[0];
  return {
    dataKey: 't',
    type: 'number',
    domain,
    allowDataOverflow: true,
    ticks: timeTicks(domain),
    tickFormatter: (v: number) => formatAxisTime(v, span),
    tick: TIMELINE_TICK,
    minTickGap: 24,
  };
}
