CREATE TABLE "run_facts" (
	"run_id" uuid PRIMARY KEY NOT NULL,
	"data_version" integer DEFAULT 0 NOT NULL,
	"facts_version" integer,
	"load" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"computed_at" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "run_metrics" (
	"run_id" uuid NOT NULL,
	"metric" text NOT NULL,
	"value" double precision NOT NULL,
	"accuracy" jsonb,
	CONSTRAINT "run_metrics_run_id_metric_pk" PRIMARY KEY("run_id","metric")
);
--> statement-breakpoint
ALTER TABLE "run_facts" ADD CONSTRAINT "run_facts_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_metrics" ADD CONSTRAINT "run_metrics_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;