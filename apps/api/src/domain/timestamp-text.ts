// A time as text: epoch microseconds as the RFC 3339 UTC string Postgres reads and the API
// returns. Parsing times is the decoders' (ingest/timestamps.ts).

/** RFC 3339 UTC with microseconds, as Postgres reads it and the API returns it. */
export function formatTimestampUs(us: number): string {
  const ms = Math.floor(us / 1000);
  const micros = us - ms * 1000;
  const iso = new Date(ms).toISOString(); // 2026-02-01T10:00:00.123Z
  return `${iso.slice(0, 23)}${String(Math.round(micros)).padStart(3, '0')}Z`;
}
