CREATE TABLE "result_uploads" (
	"run_id" uuid NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "result_uploads_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"idempotency_key" text,
	"body_sha256" text NOT NULL,
	"step" text NOT NULL,
	"answer" jsonb NOT NULL,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "load_results" ADD COLUMN "thresholds" jsonb;--> statement-breakpoint
ALTER TABLE "result_uploads" ADD CONSTRAINT "result_uploads_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "result_uploads_key_idx" ON "result_uploads" USING btree ("run_id","idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "result_uploads_body_idx" ON "result_uploads" USING btree ("run_id","body_sha256","step");--> statement-breakpoint
-- A k6 v1 summary's config.script is the whole test script (k6 internal/cmd/run.go: Script:
-- string(test.source.Data)), which holds URLs and tokens: it was kept as a label any reader
-- of the run could see. It is no longer kept; what was kept is removed.
UPDATE "load_results" SET "labels" = "labels" - 'script' WHERE "format" = 'k6' AND "labels" ? 'script';
