// What a chart draws differently when it is narrow, from the width its ResponsiveContainer
// reports. The value is a primitive and the chart draws again only when it changes, so a
// chart wide enough for everything (the usual screen) is not drawn a second time.
import { useCallback, useState } from 'react';
import { everyNth, tickStep } from './prepare/axis.ts';

interface Margin {
  left: number;
  right: number;
}

/** A value measured from the plot's width (container less margins and the y axis). */
export function usePlotMeasure<T extends number | string | undefined>(
  initial: T,
  measure: (plotWidthPx: number) => T,
  margin: Margin,
  yAxisWidth: number,
) {
  const [value, setValue] = useState<T>(initial);
  const { left, right } = margin;
  const onResize = useCallback(
    (containerWidth: number) =>
      setValue(measure(Math.max(containerWidth - left - right - yAxisWidth, 0))),
    [measure, left, right, yAxisWidth],
  );
  return [value, onResize] as const;
}

/** The ticks whose labels fit side by side: every one, or every k-th on a narrow chart. */
export function useFittedTicks(
  ticks: number[],
  label: (tick: number) => string,
  margin: Margin,
  yAxisWidth: number,
) {
  const measure = useCallback((w: number) => tickStep(ticks, w, label), [ticks, label]);
  const [step, onResize] = usePlotMeasure(1, measure, margin, yAxisWidth);
  return [everyNth(ticks, step), onResize] as const;
}
