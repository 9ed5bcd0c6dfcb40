// The command table: words that are no command (an object's own keys among them) are a usage
// error that names them, and reach no server.
import { describe, expect, it } from 'vitest';
import { EXIT, main } from './main.ts';

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  // A port nothing listens on, with no retries: a command that reached the network would
  // fail as an API error (exit 3), not as a usage error.
  const code = await main(
    [...argv, '--url', 'http://127.0.0.1:9', '--retries', '0'],
    {},
    { out: (s) => out.push(s), err: (s) => err.push(s) },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('the command table', () => {
  for (const words of [
    ['constructor'],
    ['__proto__'],
    ['toString'],
    ['run', 'constructor'],
    ['run'],
  ])
    it(`"${words.join(' ')}" is no command`, async () => {
      const { code, err } = await run(words);
      expect(code).toBe(EXIT.usage);
      expect(err).toContain(`unknown command "${words.join(' ')}"`);
    });

  it('"run show" without a run names what it needs', async () => {
    const { code, err } = await run(['run', 'show']);
    expect(code).toBe(EXIT.usage);
    expect(err).toContain('run show needs a run id or slug');
  });

  it('a known command reaches the network', async () => {
    const { code, err } = await run(['run', 'show', 'create']);
    expect(code).toBe(EXIT.api);
    expect(err).not.toContain('unknown command');
  });
});
