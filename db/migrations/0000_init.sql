CREATE TABLE "change_summaries" (
	"run_id" uuid NOT NULL,
	"change_id" text NOT NULL,
	"count" integer NOT NULL,
	"observations" integer NOT NULL,
	"repeats" integer NOT NULL,
	"before_change" integer NOT NULL,
	"min_us" double precision,
	"max_us" double precision,
	"sum_us" double precision NOT NULL,
	"block_size" integer NOT NULL,
	"block_firsts" "bytea" NOT NULL,
	"computed_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "change_summaries_run_id_change_id_pk" PRIMARY KEY("run_id","change_id")
);
--> statement-breakpoint
CREATE TABLE "changes" (
	"run_id" uuid NOT NULL,
	"id" text NOT NULL,
	"kind" text NOT NULL,
	"target" text NOT NULL,
	"action" text NOT NULL,
	"at" timestamp(6) with time zone NOT NULL,
	"expected" integer,
	CONSTRAINT "changes_run_id_id_pk" PRIMARY KEY("run_id","id")
);
--> statement-breakpoint
CREATE TABLE "event_batches" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "event_batches_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"run_id" uuid NOT NULL,
	"idempotency_key" text,
	"body_sha256" text NOT NULL,
	"accepted" integer NOT NULL,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "incidents" (
	"run_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"node" text,
	"proxy" text,
	"from" timestamp(6) with time zone NOT NULL,
	"to" timestamp(6) with time zone,
	"attrs" jsonb,
	"batch_id" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "latency_blocks" (
	"run_id" uuid NOT NULL,
	"change_id" text NOT NULL,
	"block_no" integer NOT NULL,
	"latencies" "bytea" NOT NULL,
	CONSTRAINT "latency_blocks_run_id_change_id_block_no_pk" PRIMARY KEY("run_id","change_id","block_no")
);
--> statement-breakpoint
CREATE TABLE "lifecycle_events" (
	"run_id" uuid NOT NULL,
	"phase" text NOT NULL,
	"entity" text NOT NULL,
	"node" text,
	"at" timestamp(6) with time zone NOT NULL,
	"attrs" jsonb,
	"batch_id" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "observations" (
	"run_id" uuid NOT NULL,
	"change_id" text NOT NULL,
	"proxy" text NOT NULL,
	"node" text,
	"at" timestamp(6) with time zone NOT NULL,
	"cause" text,
	"attrs" jsonb,
	"batch_id" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"benchmark" text NOT NULL,
	"scenario" text NOT NULL,
	"mesh_name" text NOT NULL,
	"mesh_version" text,
	"platform" text,
	"topology" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"environment" text,
	"labels" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"started_at" timestamp (6) with time zone NOT NULL,
	"finished_at" timestamp (6) with time zone,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"change_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "runs_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
ALTER TABLE "changes" ADD CONSTRAINT "changes_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_batches" ADD CONSTRAINT "event_batches_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "event_batches_key_idx" ON "event_batches" USING btree ("run_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "incidents_run_idx" ON "incidents" USING btree ("run_id","from");--> statement-breakpoint
CREATE INDEX "lifecycle_events_run_idx" ON "lifecycle_events" USING btree ("run_id","phase","at");--> statement-breakpoint
CREATE INDEX "observations_run_change_idx" ON "observations" USING btree ("run_id","change_id");--> statement-breakpoint
CREATE INDEX "runs_started_idx" ON "runs" USING btree ("started_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "runs_benchmark_scenario_idx" ON "runs" USING btree ("benchmark","scenario","started_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "runs_labels_idx" ON "runs" USING gin ("labels");