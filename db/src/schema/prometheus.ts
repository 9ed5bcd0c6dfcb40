// Prometheus remote-write 1.0 metadata (WriteRequest.metadata: a metric family's type, help
// and unit), which Prometheus sends apart from the samples, in requests of its own: kept per
// metric family and project so that later requests' series are read by it.
import { pgTable, primaryKey, smallint, text, timestamp } from 'drizzle-orm/pg-core';

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
