-- A run's partition of a raw table is made at its first write to that table, not with its row
-- (docs/scale.md, Partitions). Made with the row, each run paid for five partitions, most of
-- them never written: on Postgres 15 every btree a new partition gets (its own, its TOAST
-- table's) is built by nbtsort.c's _bt_load, which ends in smgrimmedsync, an fsync per index.
DROP TRIGGER "runs_partitions" ON "runs";--> statement-breakpoint
DROP FUNCTION "meshbench_runs_partitions"();--> statement-breakpoint
DROP FUNCTION "meshbench_run_partitions"(uuid);--> statement-breakpoint
-- The run's own partition of "t", made (created, then attached: SHARE UPDATE EXCLUSIVE on the
-- parent, which inserts and reads of other runs do not wait for) unless it is there. False when
-- the run is gone. The run's row is held (FOR KEY SHARE) until this commits: a deletion locks
-- it FOR UPDATE first, so no partition is made for a run being deleted. Two first writes at
-- once: the second waits for the parent's lock, then finds the partition made.
-- A run stored before 0031 has its rows in "<t>_until_0031", whose bound lists it.
CREATE FUNCTION "meshbench_run_partition"("run" uuid, "t" text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  part text := "t" || '_r' || replace("run"::text, '-', '');
BEGIN
  IF to_regclass(quote_ident(part)) IS NOT NULL THEN
    RETURN true;
  END IF;
  PERFORM 1 FROM "runs" WHERE "id" = "run" FOR KEY SHARE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  -- The parent's lock before the partition's catalog rows: two callers each making partitions
  -- of several tables (in one order) never wait for each other's rows and locks crosswise.
  EXECUTE format('LOCK TABLE ONLY %I IN SHARE UPDATE EXCLUSIVE MODE', "t");
  IF to_regclass(quote_ident(part)) IS NOT NULL THEN
    RETURN true;
  END IF;
  IF EXISTS (
    SELECT 1 FROM pg_class c
    WHERE c.oid = to_regclass(quote_ident("t" || '_until_0031')) AND c.relispartition
      AND position(quote_literal("run"::text) IN pg_get_expr(c.relpartbound, c.oid)) > 0
  ) THEN
    RETURN true;
  END IF;
  BEGIN
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, "t");
  EXCEPTION WHEN duplicate_table OR unique_violation THEN
    RETURN true;
  END;
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%L)', "t", part, "run");
  RETURN true;
END
$$;
