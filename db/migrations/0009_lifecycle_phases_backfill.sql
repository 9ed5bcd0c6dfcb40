-- Runs stored before 0008: each entity's first arrival per phase, then each phase's sorted
-- first arrivals (epoch microseconds as float8send() writes them) and its largest numeric
-- attrs.total, as ingest keeps them.
INSERT INTO "lifecycle_firsts" ("run_id", "phase", "entity", "first_at")
SELECT "run_id", "phase", "entity", min("at")
FROM "lifecycle_events"
GROUP BY "run_id", "phase", "entity";
--> statement-breakpoint
INSERT INTO "lifecycle_phases" ("run_id", "phase", "entities", "attrs_total", "firsts")
SELECT f."run_id", f."phase", count(*), max(t."total"),
  string_agg(float8send((extract(epoch FROM f."first_at") * 1000000)::float8), ''::bytea ORDER BY f."first_at")
FROM "lifecycle_firsts" f
LEFT JOIN (
  SELECT "run_id", "phase",
    max(CASE WHEN jsonb_typeof("attrs"->'total') = 'number' THEN ("attrs"->>'total')::float8 END) AS "total"
  FROM "lifecycle_events"
  GROUP BY "run_id", "phase"
) t USING ("run_id", "phase")
GROUP BY f."run_id", f."phase";
