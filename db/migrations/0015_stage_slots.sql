CREATE TABLE "load_slots" (
	"run_id" uuid NOT NULL,
	"start_ms" double precision NOT NULL,
	"interval_ms" double precision NOT NULL,
	"unit" text NOT NULL,
	"duration_ms" double precision NOT NULL,
	"requests" bigint NOT NULL,
	"errors" bigint,
	"generators" integer NOT NULL,
	"min_ms" double precision,
	"max_ms" double precision,
	"rounding_ms" double precision NOT NULL,
	"percentiles" jsonb NOT NULL,
	"hdr" "bytea" NOT NULL,
	CONSTRAINT "load_slots_run_id_start_ms_pk" PRIMARY KEY("run_id","start_ms")
);
--> statement-breakpoint
ALTER TABLE "load_slots" ADD CONSTRAINT "load_slots_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;