DROP INDEX "lifecycle_events_run_idx";--> statement-breakpoint
CREATE INDEX "lifecycle_events_run_entity_idx" ON "lifecycle_events" USING btree ("run_id","phase","entity","at");