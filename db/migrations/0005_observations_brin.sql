DROP INDEX "observations_run_change_idx";--> statement-breakpoint
CREATE INDEX "observations_batch_brin" ON "observations" USING brin ("batch_id") WITH (pages_per_range=16,autosummarize=true);