CREATE TABLE "load_results" (
	"run_id" uuid NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "load_results_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"format" text NOT NULL,
	"mode" text NOT NULL,
	"connections" integer,
	"target_rps" double precision,
	"achieved_rps" double precision,
	"duration_ms" double precision,
	"requests" bigint,
	"errors" bigint,
	"errors_by_code" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"percentiles" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"histogram" jsonb,
	"min_ms" double precision,
	"mean_ms" double precision,
	"max_ms" double precision,
	"std_dev_ms" double precision,
	"client_cpu_cores" double precision,
	"server_cpu_cores" double precision,
	"client_mem_mib" double precision,
	"server_mem_mib" double precision,
	"client_cpu_cores_max" double precision,
	"server_cpu_cores_max" double precision,
	"client_mem_mib_max" double precision,
	"server_mem_mib_max" double precision,
	"labels" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"started_at" timestamp(6) with time zone,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "load_results" ADD CONSTRAINT "load_results_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "load_results_run_idx" ON "load_results" USING btree ("run_id","id");