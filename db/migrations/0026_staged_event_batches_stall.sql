CREATE TABLE "staged_event_batches" (
	"run_id" uuid NOT NULL,
	"id" bigint NOT NULL,
	"staged_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "staged_event_batches_run_id_id_pk" PRIMARY KEY("run_id","id")
);
