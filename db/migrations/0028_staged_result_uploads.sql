CREATE TABLE "staged_load_slots" (
	"run_id" uuid NOT NULL,
	"stage_id" bigint NOT NULL,
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
	CONSTRAINT "staged_load_slots_run_id_stage_id_start_ms_pk" PRIMARY KEY("run_id","stage_id","start_ms")
);
--> statement-breakpoint
CREATE TABLE "staged_result_uploads" (
	"run_id" uuid NOT NULL,
	"id" bigint NOT NULL,
	"result_ids" bigint[] NOT NULL,
	"replace" boolean DEFAULT false NOT NULL,
	"staged_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "staged_result_uploads_run_id_id_pk" PRIMARY KEY("run_id","id")
);
