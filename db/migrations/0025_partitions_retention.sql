ALTER TABLE "projects" ADD COLUMN "raw_retention_days" integer;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "raw_dropped_at" timestamp (6) with time zone;