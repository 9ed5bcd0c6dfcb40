CREATE TABLE "staged_event_batches" (
	"id" bigint PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"staged_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "staged_event_batches_run_idx" ON "staged_event_batches" USING btree ("run_id");