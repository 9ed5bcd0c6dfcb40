CREATE TABLE "alerts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"series_key" text NOT NULL,
	"series" jsonb NOT NULL,
	"run_id" uuid NOT NULL,
	"previous_run_id" uuid,
	"details" jsonb NOT NULL,
	"state" text DEFAULT 'open' NOT NULL,
	"detected" boolean DEFAULT true NOT NULL,
	"log" jsonb NOT NULL,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alerts_project_series_idx" ON "alerts" USING btree ("project_id","series_key");