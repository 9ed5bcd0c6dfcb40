CREATE TABLE "run_deletions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"deleted_run_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"project_id" uuid NOT NULL,
	"benchmark" text NOT NULL,
	"deleted_by" text NOT NULL,
	"deleted_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"rows" jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX "run_deletions_project_idx" ON "run_deletions" USING btree ("project_id","deleted_at" DESC NULLS LAST);