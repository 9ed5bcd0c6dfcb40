CREATE TABLE "run_finishes" (
	"run_id" uuid PRIMARY KEY NOT NULL,
	"step" text,
	"failures" integer DEFAULT 0 NOT NULL,
	"failed_at" timestamp (6) with time zone,
	"error" text,
	"updated_at" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "run_finishes" ADD CONSTRAINT "run_finishes_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;