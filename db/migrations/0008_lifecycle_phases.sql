CREATE TABLE "lifecycle_firsts" (
	"run_id" uuid NOT NULL,
	"phase" text NOT NULL,
	"entity" text NOT NULL,
	"first_at" timestamp(6) with time zone NOT NULL,
	CONSTRAINT "lifecycle_firsts_run_id_phase_entity_pk" PRIMARY KEY("run_id","phase","entity")
);
--> statement-breakpoint
CREATE TABLE "lifecycle_phases" (
	"run_id" uuid NOT NULL,
	"phase" text NOT NULL,
	"entities" integer NOT NULL,
	"attrs_total" double precision,
	"firsts" "bytea" NOT NULL,
	CONSTRAINT "lifecycle_phases_run_id_phase_pk" PRIMARY KEY("run_id","phase")
);
