// `meshbench watch` against the built API while batches arrive: progress lines as they come
// (applied/expected with a bar, P50/P99 marked exact), ending on exactly what `run show`
// prints of the stored run.
import { createClient, fetchTransport } from '@meshbench/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type Api, api, backends, cli, T0 } from './test/processes.ts';

const at = (ms: number) => new Date(T0 + ms).toISOString();
const observations = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, k) => ({
    type: 'observation',
    change: 'c1',
    proxy: `p-${from + k}`,
    at: at(from + k + 1),
  }));

describe.each(backends)('meshbench watch on $name', (backend) => {
  let server: Api;
  beforeAll(async () => {
    server = await api(backend.env());
  });
  afterAll(() => server?.stop());

  it('prints progress as batches land and ends with what run show prints', async () => {
    const client = createClient(fetchTransport({ url: server.url, token: ADMIN }));
    const run = await client.runs.create({
      benchmark: 'cli-watch',
      scenario: `s-${process.pid}`,
      mesh: { name: 'consul', version: '1.9.5' },
      startedAt: at(-1000),
    });
    const env = { MESHBENCH_URL: server.url, MESHBENCH_TOKEN: ADMIN };
    const post = (lines: unknown[]) =>
      client.runs.postEvents(run.id, {
        body: lines.map((l) => JSON.stringify(l)).join('\n'),
        contentType: 'application/x-ndjson',
      });
    let connected: () => void = () => {};
    const watching = new Promise<void>((r) => {
      connected = r;
    });
    const said: string[] = [];
    const watched = cli(['watch', run.slug], env, (line) => {
      said.push(line);
      if (line.startsWith('watching ')) connected();
    });
    await watching;
    const change = {
      type: 'change',
      id: 'c1',
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: at(0),
      expected: 200,
    };
    await post([change, ...observations(0, 50)]);
    await new Promise((r) => setTimeout(r, 1500));
    await post(observations(50, 200));
    await new Promise((r) => setTimeout(r, 1500));
    await client.runs.finish(run.id, {});
    // Once (in 10+ runs) the end never came on Postgres: past 90 s, fail with what the CLI
    // and the API said, which the test runner's own timeout would not show.
    let late: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      watched,
      new Promise<never>((_, reject) => {
        late = setTimeout(
          () =>
            reject(
              new Error(
                `no end after 90 s; the CLI said:\n${said.join('\n')}\nthe API:\n${server.log()}`,
              ),
            ),
          90_000,
        );
      }),
    ]).finally(() => clearTimeout(late));
    expect(result.code, result.stderr).toBe(0);
    // Proxy k applied at k+1 ms: after 50, P50 is 25 ms and P99 50 ms (nearest rank).
    expect(result.stdout).toMatch(
      /change c1 applied 50\/200 \[######-+\] 25\.0 % {2}P50 25 ms \(exact\) {2}P99 50 ms \(exact\)/,
    );
    const shown = await cli(['run', 'show', run.id], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(
      'change c1 applied 200/200 [########################] 100.0 %  P50 100 ms (exact)  P99 198 ms (exact)',
    );
    // The watch's last lines are run show's, to the character.
    expect(result.stdout.endsWith(shown.stdout)).toBe(true);
  });
});
