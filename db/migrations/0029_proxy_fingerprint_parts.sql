ALTER TABLE "proxy_fingerprints" ADD COLUMN "part" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "proxy_fingerprints" DROP CONSTRAINT "proxy_fingerprints_run_id_change_id_stage_batch_id_pk";--> statement-breakpoint
ALTER TABLE "proxy_fingerprints" ADD CONSTRAINT "proxy_fingerprints_run_id_change_id_stage_batch_id_part_pk" PRIMARY KEY("run_id","change_id","stage","batch_id","part");
