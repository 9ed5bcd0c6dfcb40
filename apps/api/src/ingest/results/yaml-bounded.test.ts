import { describe, expect, it } from 'vitest';
import { rejected } from './test-fixtures.ts';
import { parseYaml, YAML_MAX_BYTES } from './yaml-bounded.ts';

describe('parseYaml (bounded, off the event loop)', () => {
  it('parses YAML to plain data', async () => {
    expect(await parseYaml('client:\n  connections: 2\n  rps: .nan\nlist: [1, "a"]\n')).toEqual({
      client: { connections: 2, rps: Number.NaN },
      list: [1, 'a'],
    });
  });

  it('names the line where the YAML breaks', async () => {
    const err = await rejected(() => parseYaml('a: 1\nb: 2\nclient:\n  connections: [1\n'));
    expect(err.problem).toBe('invalid_value');
    expect(err.message).toMatch(/^invalid YAML: /);
    expect(err.line).toBeGreaterThanOrEqual(4);
  });

  it('refuses a file past the YAML limit before parsing any of it', async () => {
    const text = `latencies_ms:\n${'  x: 1\n'.repeat(YAML_MAX_BYTES / 7 + 1)}`;
    const err = await rejected(() => parseYaml(text));
    expect(err.problem).toBe('too_large');
    expect(err.message).toContain(String(YAML_MAX_BYTES));
  });

  it('refuses an alias bomb (the yaml library’s maxAliasCount)', async () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const err = await rejected(() => parseYaml(lines.join('\n')));
    expect(err.message).toMatch(/alias/i);
  });

  it('ends a parse that overruns its time, in a worker that leaves the event loop free', async () => {
    // 200 KiB of "k: v" lines: the yaml library checks keys for uniqueness pairwise, seconds
    // of CPU on one thread (measured 1.4 s for 64 KiB).
    const text = Array.from({ length: 20_000 }, (_, i) => `key${i}: v`).join('\n');
    // Timers run while it parses: the parse is not on this thread (bench/parse-bounds
    // measures the longest stall).
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const err = await rejected(() => parseYaml(text, { timeoutMs: 300 })).finally(() =>
      clearInterval(timer),
    );
    expect(err).toMatchObject({ problem: 'too_complex' });
    expect(err.message).toContain('300 ms');
    expect(ticks).toBeGreaterThan(0);
  });

  it('survives nesting deep enough to overflow the parser’s stack', async () => {
    const err = await rejected(() =>
      parseYaml(`results: ${'['.repeat(100_000)}`, { timeoutMs: 1000 }),
    );
    expect(['invalid_value', 'too_complex']).toContain(err.problem);
  });
});
