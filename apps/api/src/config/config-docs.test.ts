// Holds .env.example and the README's configuration table to what config/env.ts accepts:
// the same variables, none twice, and a documented default that means the schema's default.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI_VARIABLES, envSchema } from './env.ts';

const root = new URL('../../../../', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, root), 'utf8');

/** A variable as a document lists it: its default, or undefined where it says unset. */
interface Listed {
  name: string;
  value: string | undefined;
}

type Field = (typeof envSchema.shape)[keyof typeof envSchema.shape];
const fields = envSchema.shape as Record<string, Field>;
const accepted = [...Object.keys(fields), ...CLI_VARIABLES];

/** The schema's default for a variable, or undefined where it declares none (optional). */
function schemaDefault(name: string): unknown {
  const field = fields[name];
  if (!field) return undefined;
  const parsed = field.safeParse(undefined);
  if (!parsed.success) throw new Error(`${name} has no default and is not optional`);
  return parsed.data;
}

/** `VAR=value` sets a value; `# VAR=value` lists the variable as unset. */
function listedInEnvExample(text: string): Listed[] {
  const listed: Listed[] = [];
  for (const line of text.split('\n')) {
    const m = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) listed.push({ name: m[2] as string, value: m[1] ? undefined : (m[3] as string) });
  }
  return listed;
}

/** The rows of the table under `## Configuration`: `| \`VAR\` | default | meaning |`. */
function listedInReadme(text: string): Listed[] {
  const start = text.indexOf('\n## Configuration\n');
  if (start < 0) throw new Error('README.md has no "## Configuration" section');
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  const listed: Listed[] = [];
  for (const line of section.split('\n')) {
    const m = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|([^|]*)\|/.exec(line);
    if (!m) continue;
    const cell = (m[2] as string).trim();
    listed.push({ name: m[1] as string, value: cell === 'unset' ? undefined : cell });
  }
  return listed;
}

/**
 * What a document gets wrong: a variable missing, unknown or listed twice; a value that
 * does not parse to the schema's default where it declares one. `strictUnset`: a value
 * given for a variable with no default is wrong too (copying .env.example would set it).
 */
function drift(where: string, listed: Listed[], strictUnset: boolean): string[] {
  const problems: string[] = [];
  const names = listed.map((l) => l.name);
  for (const name of accepted) {
    if (!names.includes(name)) problems.push(`${where} does not list ${name}`);
  }
  for (const { name, value } of listed) {
    if (!accepted.includes(name)) {
      problems.push(`${where} lists ${name}, which config/env.ts does not accept`);
      continue;
    }
    const field = fields[name];
    if (!field) continue; // the CLI's own: the server declares no default for them
    const fallback = schemaDefault(name);
    if (fallback === undefined) {
      if (strictUnset && value !== undefined) {
        problems.push(
          `${where} sets ${name}=${value}, but config/env.ts declares no default: comment it out`,
        );
      }
      continue;
    }
    const documented = value === undefined ? undefined : field.safeParse(value);
    if (!documented?.success || !Object.is(documented.data, fallback)) {
      problems.push(
        `${where} gives ${name} the default ${value ?? 'unset'}, config/env.ts ${JSON.stringify(fallback)}`,
      );
    }
  }
  for (const name of new Set(names)) {
    if (names.filter((n) => n === name).length > 1) problems.push(`${where} lists ${name} twice`);
  }
  return problems;
}

describe('configuration documents', () => {
  it('.env.example lists exactly the variables env.ts accepts, with its defaults', () => {
    expect(drift('.env.example', listedInEnvExample(read('.env.example')), true)).toEqual([]);
  });

  it("README's configuration table lists exactly those variables, with their defaults", () => {
    expect(drift('README.md', listedInReadme(read('README.md')), false)).toEqual([]);
  });

  it('reports a variable missing, unknown, twice, or with another default', () => {
    const complete = accepted.map((name) => {
      const d = schemaDefault(name);
      return { name, value: d === undefined ? undefined : String(d) };
    });
    expect(drift('doc', complete, true)).toEqual([]);
    const bad = complete
      .filter((l) => l.name !== 'STATSD_HOST')
      .map((l) => (l.name === 'PORT' ? { name: 'PORT', value: '3001' } : l))
      .map((l) => (l.name === 'MESHBENCH_DEMO' ? { name: l.name, value: '1' } : l));
    bad.push({ name: 'MESHBENCH_TYPO', value: '1' });
    bad.push({ name: 'HOST', value: '127.0.0.1' });
    expect(drift('doc', bad, true)).toEqual([
      'doc does not list STATSD_HOST',
      'doc gives PORT the default 3001, config/env.ts 3000',
      'doc sets MESHBENCH_DEMO=1, but config/env.ts declares no default: comment it out',
      'doc lists MESHBENCH_TYPO, which config/env.ts does not accept',
      'doc lists HOST twice',
    ]);
    // A default written as unset, or as text that does not parse, is a disagreement.
    expect(
      drift(
        'doc',
        [...complete.filter((l) => l.name !== 'PORT'), { name: 'PORT', value: undefined }],
        false,
      ),
    ).toContain('doc gives PORT the default unset, config/env.ts 3000');
  });

  it('reads both documents the way they are written', () => {
    expect(
      listedInEnvExample('# a comment naming PORT\nPORT=3000\n# DATABASE_URL=postgres://x\n'),
    ).toEqual([
      { name: 'PORT', value: '3000' },
      { name: 'DATABASE_URL', value: undefined },
    ]);
    const readme =
      '# x\n## Configuration\n\n| variable | default | meaning |\n| --- | --- | --- |\n| `PORT` | 3000 | port |\n| `HOST` | unset | h |\n\n## Develop\n| `LATER` | 1 | not in the section |\n';
    expect(listedInReadme(readme)).toEqual([
      { name: 'PORT', value: '3000' },
      { name: 'HOST', value: undefined },
    ]);
  });
});
