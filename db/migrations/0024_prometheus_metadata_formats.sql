CREATE TABLE "prometheus_metadata" (
	"scope" text NOT NULL,
	"family" text NOT NULL,
	"type" smallint NOT NULL,
	"help" text NOT NULL,
	"unit" text NOT NULL,
	"updated_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "prometheus_metadata_scope_family_pk" PRIMARY KEY("scope","family")
);
