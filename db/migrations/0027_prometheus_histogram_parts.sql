CREATE TABLE "prometheus_histogram_parts" (
	"scope" text NOT NULL,
	"family" text NOT NULL,
	"labels_key" text NOT NULL,
	"t_ms" bigint NOT NULL,
	"tags" jsonb NOT NULL,
	"run_ref" text,
	"environment" text,
	"unit" text,
	"start_ms" bigint DEFAULT 0 NOT NULL,
	"buckets" jsonb NOT NULL,
	"inf" double precision,
	"sum" double precision,
	"count" double precision,
	"exemplars" jsonb,
	"state" text DEFAULT 'pending' NOT NULL,
	"les" jsonb,
	"updated_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "prometheus_histogram_parts_scope_family_labels_key_t_ms_pk" PRIMARY KEY("scope","family","labels_key","t_ms")
);
--> statement-breakpoint
CREATE INDEX "prometheus_histogram_parts_state_idx" ON "prometheus_histogram_parts" USING btree ("state","updated_at");