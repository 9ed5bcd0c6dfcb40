// How wide a chart's plot area is, measured by its ResponsiveContainer: what fitTicks needs
// to keep tick labels from overlapping on narrow charts and printed pages.
import { useCallback, useState } from 'react';

export function usePlotWidth(margin: { left: number; right: number }, yAxisWidth: number) {
  const [width, setWidth] = useState<number | null>(null);
  const { left, right } = margin;
  const onResize = useCallback(
    (containerWidth: number) => setWidth(Math.max(containerWidth - left - right - yAxisWidth, 0)),
    [left, right, yAxisWidth],
  );
  return [width, onResize] as const;
}
