ALTER TABLE "latency_blocks" ADD COLUMN "batch_id" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Blocks staged under a clock `staged:<batch>` (before this migration) by a batch that never
-- committed: its staged mark stays and its observations go at start, these go now.
DELETE FROM "latency_blocks" WHERE "clock" LIKE 'staged:%';--> statement-breakpoint
ALTER TABLE "latency_blocks" DROP CONSTRAINT "latency_blocks_run_id_change_id_stage_clock_block_no_pk";--> statement-breakpoint
ALTER TABLE "latency_blocks" ADD CONSTRAINT "latency_blocks_run_id_change_id_stage_clock_batch_id_block_no_pk" PRIMARY KEY("run_id","change_id","stage","clock","batch_id","block_no");--> statement-breakpoint
ALTER TABLE "change_summaries" ADD COLUMN "blocks_batch" bigint DEFAULT 0 NOT NULL;
