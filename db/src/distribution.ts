// How each table would be placed on Citus (docs/scale.md): sharded by run id, copied to
// every node, or kept on the coordinator. A test holds the live catalog to these lists, so a
// table added to the schema without a place here fails it.

/** The column every distributed table is sharded by, colocated with each other. */
export const DISTRIBUTION_COLUMN = 'run_id';

/**
 * A run's data, read and written one run at a time: `create_distributed_table(t, 'run_id')`.
 * Each one's primary key and unique keys include run_id; `raw` tables hold what a run's kept
 * summaries were computed from, and are what retention drops (docs/scale.md, Retention).
 */
export const DISTRIBUTED_TABLES = {
  changes: { raw: false },
  observations: { raw: true },
  incidents: { raw: true },
  lifecycle_events: { raw: true },
  lifecycle_firsts: { raw: false },
  lifecycle_phases: { raw: false },
  event_batches: { raw: false },
  staged_event_batches: { raw: false },
  change_summaries: { raw: false },
  proxy_fingerprints: { raw: false },
  latency_blocks: { raw: false },
  // Kept: a few rows a node, and what a kept clock-corrected summary is read beside.
  clock_reports: { raw: false },
  metric_series: { raw: false },
  metric_points: { raw: true },
  load_results: { raw: false },
  load_intervals: { raw: true },
  load_slots: { raw: false },
  result_uploads: { raw: false },
  staged_result_uploads: { raw: false },
  staged_load_slots: { raw: false },
} as const satisfies Record<string, { raw: boolean }>;

/**
 * Small tables, or tables read across runs (lists, history, gates, alerts, the finish worker):
 * `create_reference_table(t)`, a copy on every node. `runs` is one of them: a run is one row
 * a night per scenario, its slug is unique across runs (a unique key without the run id), and
 * the history and list read runs of many ids at once.
 */
export const REFERENCE_TABLES = [
  'projects',
  'api_tokens',
  'runs',
  'run_deletions',
  'reports',
  'thresholds',
  'gate_results',
  'alerts',
  'run_facts',
  'run_finishes',
  'run_metrics',
  'background_leases',
  // Prometheus 1.0 metadata per metric family and project: small, read by every replica.
  'prometheus_metadata',
] as const;

/**
 * Tables of no run and too busy to copy to every node: a local table of the coordinator
 * (`citus_add_local_table_to_metadata`). `unmatched_points` holds metric points no run has
 * claimed yet, for minutes, keyed by environment and time; `prometheus_histogram_parts` the
 * parts of classic histograms split across remote-write requests, until assembled.
 */
export const COORDINATOR_TABLES = ['unmatched_points', 'prometheus_histogram_parts'] as const;

/** The raw tables retention empties for a run (its summaries and facts are kept). */
export const RAW_TABLES = Object.entries(DISTRIBUTED_TABLES)
  .filter(([, t]) => t.raw)
  .map(([name]) => name);

/**
 * The tables list-partitioned by run (migration 0031, docs/scale.md, Partitions): the raw
 * ones. Each run stored since has a partition of its own in each it writes to, made at its
 * first write there (migration 0032: `meshbench_run_partition`); the runs stored before 0031
 * share the partition `<table>_until_0031`.
 */
export const RUN_PARTITIONED_TABLES = RAW_TABLES;

/** The name of a run's own partition of `table`: `<table>_r<the run id's 32 hex digits>`. */
export function runPartitionName(table: string, runId: string): string {
  return `${table}_r${runId.toLowerCase().replaceAll('-', '')}`;
}
