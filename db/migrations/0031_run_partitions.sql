ALTER TABLE "load_intervals" DROP CONSTRAINT "load_intervals_run_id_runs_id_fk";--> statement-breakpoint
-- The raw tables, list-partitioned by run (docs/scale.md, Partitions): deleting a run drops its
-- partitions and retention truncates them. No new run is stored while this runs.
LOCK TABLE "runs" IN SHARE MODE;--> statement-breakpoint
-- A run's partitions: each created apart, then attached (SHARE UPDATE EXCLUSIVE on the parent,
-- which inserts and reads of other runs do not wait for). Named <table>_r<run id's hex>.
CREATE FUNCTION "meshbench_run_partitions"("run" uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t text;
  part text;
BEGIN
  FOREACH t IN ARRAY ARRAY['observations', 'incidents', 'lifecycle_events', 'metric_points', 'load_intervals'] LOOP
    part := t || '_r' || replace("run"::text, '-', '');
    IF to_regclass(quote_ident(part)) IS NULL THEN
      EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, t);
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%L)', t, part, "run");
    END IF;
  END LOOP;
END
$$;--> statement-breakpoint
CREATE FUNCTION "meshbench_runs_partitions"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "meshbench_run_partitions"(NEW."id");
  RETURN NULL;
END
$$;--> statement-breakpoint
-- Each table renamed and attached whole as the partition of the runs stored so far (and of
-- any run id its rows hold): no row is copied, and each index of the new parent is matched to
-- the old table's same index, not rebuilt. Attaching reads the old table once to check it.
-- With no such run the old table is empty and dropped.
CREATE FUNCTION "meshbench_partition_by_run"("t" text, "indexes" text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  ix text;
  ids text;
  old text := "t" || '_until_0031';
BEGIN
  EXECUTE format('ALTER TABLE %I RENAME TO %I', "t", old);
  FOREACH ix IN ARRAY "indexes" LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I', split_part(ix, ' ', 1), split_part(ix, ' ', 1) || '_0031');
  END LOOP;
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY LIST ("run_id")', "t", old);
  FOREACH ix IN ARRAY "indexes" LOOP
    EXECUTE format('CREATE %s', substr(ix, length(split_part(ix, ' ', 1)) + 2));
  END LOOP;
  EXECUTE format('SELECT string_agg(quote_literal(id::text), '','') FROM (SELECT "id" FROM "runs" UNION SELECT DISTINCT "run_id" FROM %I) AS r("id")', old)
    INTO ids;
  IF ids IS NULL THEN
    EXECUTE format('DROP TABLE %I', old);
  ELSE
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%s)', "t", old, ids);
  END IF;
END
$$;--> statement-breakpoint
SELECT "meshbench_partition_by_run"('observations', ARRAY['observations_batch_brin INDEX "observations_batch_brin" ON "observations" USING brin ("batch_id") WITH (pages_per_range = 16, autosummarize = true)']);--> statement-breakpoint
SELECT "meshbench_partition_by_run"('incidents', ARRAY['incidents_run_idx INDEX "incidents_run_idx" ON "incidents" USING btree ("run_id", "from")']);--> statement-breakpoint
SELECT "meshbench_partition_by_run"('lifecycle_events', ARRAY['lifecycle_events_run_entity_idx INDEX "lifecycle_events_run_entity_idx" ON "lifecycle_events" USING btree ("run_id", "phase", "entity", "at")']);--> statement-breakpoint
SELECT "meshbench_partition_by_run"('metric_points', ARRAY['metric_points_point_idx UNIQUE INDEX "metric_points_point_idx" ON "metric_points" USING btree ("run_id", "series_id", "t", "interval_ms", "replica", COALESCE("start_at", ''-infinity''::timestamp with time zone))']);--> statement-breakpoint
SELECT "meshbench_partition_by_run"('load_intervals', ARRAY['load_intervals_run_idx INDEX "load_intervals_run_idx" ON "load_intervals" USING btree ("run_id", "result_id", "start_ms")']);--> statement-breakpoint
DROP FUNCTION "meshbench_partition_by_run"(text, text[]);--> statement-breakpoint
-- The runs stored so far are in the old tables; each new one gets its own partitions.
CREATE TRIGGER "runs_partitions" AFTER INSERT ON "runs" FOR EACH ROW EXECUTE FUNCTION "meshbench_runs_partitions"();
