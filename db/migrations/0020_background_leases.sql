CREATE TABLE "background_leases" (
	"job" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp (6) with time zone NOT NULL
);
