CREATE TABLE "load_intervals" (
	"run_id" uuid NOT NULL,
	"result_id" bigint NOT NULL,
	"start_ms" double precision NOT NULL,
	"duration_ms" double precision NOT NULL,
	"count" bigint NOT NULL,
	"errors" bigint,
	"min_ms" double precision,
	"max_ms" double precision,
	"hdr" "bytea" NOT NULL
);
--> statement-breakpoint
ALTER TABLE "load_results" ADD COLUMN "generator" text;--> statement-breakpoint
ALTER TABLE "load_results" ADD COLUMN "hdr" "bytea";--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "detection" jsonb;--> statement-breakpoint
ALTER TABLE "load_intervals" ADD CONSTRAINT "load_intervals_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "load_intervals_run_idx" ON "load_intervals" USING btree ("run_id","result_id","start_ms");