ALTER TABLE "metric_points" ADD COLUMN "exemplars" jsonb;--> statement-breakpoint
ALTER TABLE "unmatched_points" ADD COLUMN "exemplars" jsonb;