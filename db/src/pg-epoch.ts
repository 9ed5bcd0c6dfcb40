// Postgres counts timestamps from its own epoch, not Unix's: the binary COPY forms of a
// timestamptz (written and read here) are microseconds since 2000-01-01T00:00:00Z.

/** Microseconds from the Unix epoch to Postgres' (2000-01-01T00:00:00Z). */
export const PG_EPOCH_US = 946_684_800_000_000;
