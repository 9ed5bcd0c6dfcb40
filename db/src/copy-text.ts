// Escaping for COPY's text format: backslash, tab, newline and carriage return.
const special = /[\\\t\n\r]/;

export function copyText(value: string | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  if (!special.test(value)) return value;
  return value.replace(/[\\\t\n\r]/g, (c) =>
    c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
  );
}
