ALTER TABLE "run_facts" ADD COLUMN "alerts_version" integer;--> statement-breakpoint
-- Runs kept before: their change points were looked for at their finish, as their data stood.
UPDATE "run_facts" SET "alerts_version" = "data_version";