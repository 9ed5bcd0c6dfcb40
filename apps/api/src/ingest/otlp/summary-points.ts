// Summary data points as records: count and sum since the start (cumulative by definition),
// quantiles as sent.
import type { MetricRecord } from '../../domain/metric-record.ts';
import type { SummaryPoint } from './otlp-message.ts';
import { num, optNum } from './otlp-values.ts';

export function summaryPoint(sp: SummaryPoint, base: MetricRecord, startMs: number | null): null {
  base.kind = 'summary';
  base.count = num(sp.count);
  base.sum = optNum(sp.sum);
  base.startAtMs = startMs ?? 0;
  base.quantiles = (sp.quantileValues ?? []).map((q) => ({
    q: Number(q.quantile ?? 0),
    value: Number(q.value ?? 0),
  }));
  return null;
}
