-- Clock reports are read by run (all of a run's, or their count and last batch), never by node:
-- the index on (run, node, at) put each report's text key in its place, and a batch's COPY of
-- 20,000 reports cost Postgres about twice its rows alone. Built on the reports stored so far.
DROP INDEX "clock_reports_run_node_idx";--> statement-breakpoint
CREATE INDEX "clock_reports_run_batch_idx" ON "clock_reports" USING btree ("run_id","batch_id");
