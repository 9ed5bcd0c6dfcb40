CREATE TABLE "proxy_fingerprints" (
	"run_id" uuid NOT NULL,
	"change_id" text NOT NULL,
	"batch_id" bigint NOT NULL,
	"fingerprints" "bytea" NOT NULL,
	CONSTRAINT "proxy_fingerprints_run_id_change_id_batch_id_pk" PRIMARY KEY("run_id","change_id","batch_id")
);
--> statement-breakpoint
ALTER TABLE "change_summaries" ADD COLUMN "proxies_fingerprinted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "event_batches" ADD COLUMN "source" text;--> statement-breakpoint
ALTER TABLE "event_batches" ADD COLUMN "first_line" integer;--> statement-breakpoint
ALTER TABLE "event_batches" ADD COLUMN "last_line" integer;--> statement-breakpoint
CREATE INDEX "event_batches_source_idx" ON "event_batches" USING btree ("run_id","source","first_line") WHERE source is not null;