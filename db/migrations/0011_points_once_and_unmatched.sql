CREATE TABLE "unmatched_points" (
	"project_id" uuid,
	"environment" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"source" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"unit" text,
	"tags" jsonb NOT NULL,
	"key_hash" text NOT NULL,
	"t" timestamp(3) with time zone NOT NULL,
	"interval_ms" integer NOT NULL,
	"start_at" timestamp(3) with time zone,
	"replica" text NOT NULL,
	"count" double precision NOT NULL,
	"sum" double precision,
	"min" double precision,
	"max" double precision,
	"last" double precision,
	"last_at" timestamp(3) with time zone,
	"members" text[],
	"sketch" "bytea",
	"quantiles" jsonb,
	"last_exact" text
);
--> statement-breakpoint
-- Points stored twice before this migration (retried exports) are kept once, so that the
-- unique index below can be built.
DELETE FROM "metric_points" a USING (
  SELECT ctid, row_number() OVER (
    PARTITION BY "run_id", "series_id", "t", "interval_ms", "replica", coalesce("start_at", '-infinity'::timestamptz)
    ORDER BY ctid) AS n
  FROM "metric_points"
) d
WHERE a.ctid = d.ctid AND d.n > 1;--> statement-breakpoint
DROP INDEX "metric_points_series_idx";--> statement-breakpoint
ALTER TABLE "metric_points" ADD COLUMN "last_exact" text;--> statement-breakpoint
CREATE INDEX "unmatched_points_claim_idx" ON "unmatched_points" USING btree ("environment","t");--> statement-breakpoint
CREATE INDEX "unmatched_points_received_idx" ON "unmatched_points" USING btree ("received_at");--> statement-breakpoint
CREATE UNIQUE INDEX "metric_points_point_idx" ON "metric_points" USING btree ("run_id","series_id","t","interval_ms","replica",coalesce("start_at", '-infinity'::timestamptz));