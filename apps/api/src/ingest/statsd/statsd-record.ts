// A StatsD flush's aggregate as the record every metrics source becomes.
import type { MetricRecord } from '../../domain/metric-record.ts';
import type { AggregateRow } from './statsd-aggregate.ts';
import { parseTags } from './statsd-lines.ts';

/** A StatsD aggregate as a record: DogStatsD tags parsed, `run` taken out, `env` read. */
export function statsdRecord(row: AggregateRow): MetricRecord {
  const tags = parseTags(row.tags);
  const runRef = tags.run ?? null;
  delete tags.run;
  if (row.containerId) tags.container_id = row.containerId;
  return {
    source: 'statsd',
    name: row.name,
    kind: row.kind,
    unit: row.kind === 'timer' ? 'ms' : null,
    tags,
    runRef: runRef || null,
    env: tags.env || null,
    tMs: row.tMs,
    intervalMs: row.intervalMs,
    startAtMs: null,
    count: row.count,
    sum: row.sum,
    min: row.min,
    max: row.max,
    last: row.last,
    lastAtMs: row.lastAtMs,
    sketch: row.sketch,
    members: row.members,
    quantiles: null,
    lastExact: row.lastExact,
  };
}
