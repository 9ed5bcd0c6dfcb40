import { describe, expect, it } from 'vitest';
import { rejected } from './test-fixtures.ts';
import { parseYaml, YAML_MAX_BYTES } from './yaml-bounded.ts';

/** The longest the event loop went without running a 5 ms timer while `work` ran. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  try {
    await work().catch(() => {});
  } finally {
    clearInterval(timer);
  }
  return worst;
}

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
    const started = performance.now();
    const err = await rejected(() => parseYaml(text));
    expect(performance.now() - started).toBeLessThan(100);
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

  it('ends a parse that overruns its time, and never holds the event loop', async () => {
    // 200 KiB of "k: v" lines: the yaml library checks keys for uniqueness pairwise, seconds
    // of CPU on one thread (measured 1.4 s for 64 KiB).
    const text = Array.from({ length: 20_000 }, (_, i) => `key${i}: v`).join('\n');
    let err: unknown;
    const stall = await longestStall(async () => {
      err = await rejected(() => parseYaml(text, { timeoutMs: 300 }));
    });
    expect(err).toMatchObject({ problem: 'too_complex' });
    expect((err as Error).message).toContain('300 ms');
    // The worker's start and the 200 KiB copy are the only work done here.
    expect(stall).toBeLessThan(200);
  });

  it('survives nesting deep enough to overflow the parser’s stack', async () => {
    const err = await rejected(() =>
      parseYaml(`results: ${'['.repeat(100_000)}`, { timeoutMs: 1000 }),
    );
    expect(['invalid_value', 'too_complex']).toContain(err.problem);
  });
});
