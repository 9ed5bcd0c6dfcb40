// Versions in the order people read them: 1.9.5, then 1.10.0. The runs repository sorts the
// list in SQL by the same rule.

const LEADING_NUMBERS = /^[vV]?(\d+(?:\.\d+)*)/;

/** The leading dotted numbers of a version ("v1.10.0-rc1" -> [1, 10, 0]); null when none. */
export function versionNumbers(version: string): number[] | null {
  const m = LEADING_NUMBERS.exec(version);
  return m ? (m[1] as string).split('.').map(Number) : null;
}

/**
 * Ascending: by leading numbers, number by number (a prefix first: 1.10 before 1.10.0), then
 * by the whole text code unit by code unit; versions without leading numbers last.
 */
export function compareVersions(a: string, b: string): number {
  const x = versionNumbers(a);
  const y = versionNumbers(b);
  if (x && !y) return -1;
  if (!x && y) return 1;
  if (x && y) {
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const d = (x[i] as number) - (y[i] as number);
      if (d !== 0) return d < 0 ? -1 : 1;
    }
    if (x.length !== y.length) return x.length - y.length < 0 ? -1 : 1;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}
