ALTER TABLE "event_batches" ADD COLUMN "source" text;--> statement-breakpoint
ALTER TABLE "event_batches" ADD COLUMN "first_line" integer;--> statement-breakpoint
ALTER TABLE "event_batches" ADD COLUMN "last_line" integer;--> statement-breakpoint
CREATE INDEX "event_batches_source_idx" ON "event_batches" USING btree ("run_id","source","first_line") WHERE source is not null;