-- Every table distributed by run id keys its rows by run first (docs/scale.md, Citus-ready):
-- a primary key without run_id cannot be a constraint of a table sharded by run_id.
ALTER TABLE "event_batches" DROP CONSTRAINT "event_batches_pkey";--> statement-breakpoint
ALTER TABLE "metric_series" DROP CONSTRAINT "metric_series_pkey";--> statement-breakpoint
ALTER TABLE "event_batches" ADD CONSTRAINT "event_batches_run_id_id_pk" PRIMARY KEY("run_id","id");--> statement-breakpoint
ALTER TABLE "metric_series" ADD CONSTRAINT "metric_series_run_id_id_pk" PRIMARY KEY("run_id","id");
