// What a decoded body may not carry into the database: text Postgres cannot store (NUL) or
// that is not text (lone UTF-16 surrogates, invalid UTF-8), numbers JSON.parse made
// infinite (1e400), and keys that name an object's prototype. Each is refused by its path
// instead of being stored altered (null for Infinity, U+FFFD for bad bytes) or failing as
// a 500 in the middle of a write.
import { isUtf8 } from 'node:buffer';

export interface BadValue {
  /** Where, as a dotted path ("labels.a", "attrs.__proto__"); "" for the value itself. */
  path: string;
  reason: string;
}

// With the u flag a surrogate pair is one code point: only lone halves match.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const FORBIDDEN_KEYS = new Set(['__proto__']);

/** Why a string cannot be stored as it is, or undefined. */
export function textProblem(s: string): string | undefined {
  if (s.includes('\u0000')) return 'contains a NUL character (\\u0000), which cannot be stored';
  if (LONE_SURROGATE.test(s))
    return 'contains a lone UTF-16 surrogate (e.g. \\ud800), which is not a character';
  return undefined;
}

const join = (path: string, key: string | number) =>
  path === '' ? String(key) : `${path}.${String(key)}`;

/** How deep a decoded value may nest (objects and arrays); deeper is refused, not walked. */
export const MAX_NESTING = 100;

/**
 * The first value in a decoded JSON value that cannot be stored as sent, depth first; a value
 * nesting deeper than MAX_NESTING is one (a walk of its own stack, never the call stack's:
 * 100,000 levels are refused, not a stack overflow).
 */
export function findBadValue(
  value: unknown,
  path = '',
  options: { numbers?: boolean } = {},
): BadValue | undefined {
  const stack: [unknown, string, number][] = [[value, path, 0]];
  while (stack.length > 0) {
    const [v, at, depth] = stack.pop() as [unknown, string, number];
    switch (typeof v) {
      case 'string': {
        const reason = textProblem(v);
        if (reason) return { path: at, reason };
        break;
      }
      case 'number':
        if (options.numbers !== false && !Number.isFinite(v)) {
          return { path: at, reason: 'is not a finite number (beyond ±1.8e308)' };
        }
        break;
      case 'object': {
        if (v === null) break;
        if (depth >= MAX_NESTING) {
          return {
            path: at.length > 200 ? `${at.slice(0, 200)}…` : at,
            reason: `nests deeper than ${MAX_NESTING} levels`,
          };
        }
        if (Array.isArray(v)) {
          for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], join(at, i), depth + 1]);
          break;
        }
        const keys = Object.keys(v);
        // An object's keys are checked before its values.
        const children: [unknown, string, number][] = [];
        for (const key of keys) {
          const child = join(at, key);
          if (FORBIDDEN_KEYS.has(key))
            return { path: child, reason: 'is a key that is not allowed' };
          const keyProblem = textProblem(key);
          if (keyProblem) return { path: child, reason: `has a key that ${keyProblem}` };
          children.push([(v as Record<string, unknown>)[key], child, depth + 1]);
        }
        for (let i = children.length - 1; i >= 0; i--)
          stack.push(children[i] as [unknown, string, number]);
        break;
      }
      default:
        break;
    }
  }
  return undefined;
}

/**
 * invalidUtf8At for whole bodies (up to hundreds of MiB): Node's native check first, the
 * byte walk below only to name the offset of a body already known to be bad.
 */
export function firstInvalidUtf8(b: Buffer): number {
  return isUtf8(b) ? -1 : invalidUtf8At(b);
}

/**
 * The offset of the first byte of b[start, end) that is not part of well-formed UTF-8
 * (overlong forms, surrogates and code points past U+10FFFF included), or -1.
 */
export function invalidUtf8At(b: Uint8Array, start = 0, end = b.length): number {
  let i = start;
  while (i < end) {
    const c = b[i] as number;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    let cp: number;
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1;
      min = 0x80;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      min = 0x800;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      min = 0x10000;
      cp = c & 0x07;
    } else {
      return i;
    }
    if (i + need > end - 1) return i; // cut short
    for (let k = 1; k <= need; k++) {
      const n = b[i + k] as number;
      if ((n & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (n & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}
