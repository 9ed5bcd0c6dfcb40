// Prometheus remote-write 1.0 metadata (WriteRequest.metadata: a metric family's type, help
// and unit), which Prometheus sends apart from the samples, in requests of its own: kept per
// metric family and project so that later requests' series are read by it.
import {
  bigint,
  doublePrecision,
  index,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

/** An exemplar as metric points keep it (metric_points.exemplars). */
type StoredExemplar = {
  tMs: number;
  value: number | 'NaN' | '+Inf' | '-Inf';
  labels: Record<string, string>;
};

export const prometheusMetadata = pgTable(
  'prometheus_metadata',
  {
    /** The writing token's project id; '' for the admin token (any project). */
    scope: text('scope').notNull(),
    /** The metric family name (MetricMetadata.metric_family_name). */
    family: text('family').notNull(),
    /** MetricMetadata.MetricType: 1 counter, 2 gauge, 3 histogram, 4 gauge histogram, 5 summary... */
    type: smallint('type').notNull(),
    help: text('help').notNull(),
    unit: text('unit').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.family] })],
);

/**
 * The parts of a classic histogram point (`X_bucket{le}`, `X_sum`, `X_count` of one label set
 * and time) that arrived in different remote-write requests (Prometheus' shards send a
 * family's series apart): each arrival merged into its row, the point assembled and stored
 * once its parts are complete, or its parts released as series of their own when it never
 * completes (docs/prometheus.md).
 */
export const prometheusHistogramParts = pgTable(
  'prometheus_histogram_parts',
  {
    /** The writing token's project id; '' for the admin token (any project). */
    scope: text('scope').notNull(),
    /** The family's name: `X` of `X_bucket`. */
    family: text('family').notNull(),
    /** sha256 of the run label and the tags without `le`: the family's label set. */
    labelsKey: text('labels_key').notNull(),
    /** The scrape's time (ms since the epoch). */
    tMs: bigint('t_ms', { mode: 'number' }).notNull(),
    /** The family's tags (without `le`), run label and environment, as sent. */
    tags: jsonb('tags').$type<Record<string, string>>().notNull(),
    runRef: text('run_ref'),
    environment: text('environment'),
    unit: text('unit'),
    /** The start of the accumulation (2.0 start timestamp or created timestamp); 0: unknown. */
    startMs: bigint('start_ms', { mode: 'number' }).notNull().default(0),
    /** Finite buckets arrived: `le` as sent -> cumulative count. */
    buckets: jsonb('buckets').$type<Record<string, number>>().notNull(),
    inf: doublePrecision('inf'),
    sum: doublePrecision('sum'),
    count: doublePrecision('count'),
    exemplars: jsonb('exemplars').$type<StoredExemplar[]>(),
    /** 'pending', 'assembled' (a histogram point stored) or 'released' (parts stored as series). */
    state: text('state').notNull().default('pending'),
    /** The finite `le`s of the assembled point (a part arriving later is stored apart). */
    les: jsonb('les').$type<string[]>(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.scope, t.family, t.labelsKey, t.tMs] }),
    index('prometheus_histogram_parts_state_idx').on(t.state, t.updatedAt),
  ],
);
