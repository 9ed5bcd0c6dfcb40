-- Columns first: the new primary keys name them.
CREATE TABLE "clock_reports" (
	"run_id" uuid NOT NULL,
	"node" text NOT NULL,
	"at" timestamp(6) with time zone NOT NULL,
	"offset_us" double precision NOT NULL,
	"error_us" double precision NOT NULL,
	"batch_id" bigint NOT NULL
);--> statement-breakpoint
ALTER TABLE "change_summaries" ADD COLUMN "stage" text DEFAULT 'applied' NOT NULL;--> statement-breakpoint
ALTER TABLE "change_summaries" ADD COLUMN "clock" text DEFAULT 'raw' NOT NULL;--> statement-breakpoint
ALTER TABLE "change_summaries" ADD COLUMN "clock_max_error_us" double precision;--> statement-breakpoint
ALTER TABLE "change_summaries" ADD COLUMN "clock_nodes" integer;--> statement-breakpoint
ALTER TABLE "change_summaries" ADD COLUMN "uncorrected_nodes" integer;--> statement-breakpoint
ALTER TABLE "change_summaries" ADD COLUMN "clock_input_batch" bigint;--> statement-breakpoint
ALTER TABLE "latency_blocks" ADD COLUMN "stage" text DEFAULT 'applied' NOT NULL;--> statement-breakpoint
ALTER TABLE "latency_blocks" ADD COLUMN "clock" text DEFAULT 'raw' NOT NULL;--> statement-breakpoint
ALTER TABLE "observations" ADD COLUMN "stage" text;--> statement-breakpoint
ALTER TABLE "proxy_fingerprints" ADD COLUMN "stage" text DEFAULT 'applied' NOT NULL;--> statement-breakpoint
ALTER TABLE "change_summaries" DROP CONSTRAINT "change_summaries_run_id_change_id_pk";--> statement-breakpoint
ALTER TABLE "latency_blocks" DROP CONSTRAINT "latency_blocks_run_id_change_id_block_no_pk";--> statement-breakpoint
ALTER TABLE "proxy_fingerprints" DROP CONSTRAINT "proxy_fingerprints_run_id_change_id_batch_id_pk";--> statement-breakpoint
ALTER TABLE "change_summaries" ADD CONSTRAINT "change_summaries_run_id_change_id_stage_clock_pk" PRIMARY KEY("run_id","change_id","stage","clock");--> statement-breakpoint
ALTER TABLE "latency_blocks" ADD CONSTRAINT "latency_blocks_run_id_change_id_stage_clock_block_no_pk" PRIMARY KEY("run_id","change_id","stage","clock","block_no");--> statement-breakpoint
ALTER TABLE "proxy_fingerprints" ADD CONSTRAINT "proxy_fingerprints_run_id_change_id_stage_batch_id_pk" PRIMARY KEY("run_id","change_id","stage","batch_id");--> statement-breakpoint
CREATE INDEX "clock_reports_run_node_idx" ON "clock_reports" USING btree ("run_id","node","at");
