// The one UUID check: ids are interpolated into statements that take no parameters (COPY,
// DECLARE), and an id-or-name look-up compares a uuid column only with a UUID's text.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a UUID's canonical text (8-4-4-4-12 hex digits, either case), any version. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
