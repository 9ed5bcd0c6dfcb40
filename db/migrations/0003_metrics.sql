CREATE TABLE "metric_points" (
	"run_id" uuid NOT NULL,
	"series_id" bigint NOT NULL,
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
	"quantiles" jsonb
);
--> statement-breakpoint
CREATE TABLE "metric_series" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "metric_series_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"run_id" uuid NOT NULL,
	"source" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"unit" text,
	"tags" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"key_hash" text NOT NULL,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "metric_series" ADD CONSTRAINT "metric_series_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "metric_points_series_idx" ON "metric_points" USING btree ("run_id","series_id","t");--> statement-breakpoint
CREATE UNIQUE INDEX "metric_series_key_idx" ON "metric_series" USING btree ("run_id","key_hash");