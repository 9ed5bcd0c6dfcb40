// A threshold's baseline run is one its project's token may read: every verdict of the
// threshold shows the baseline's numbers, so a run of another private project is refused,
// and a baseline that names no run is a 400 at once instead of a 404 at every finish.
import { apiError, createdToken, project, run, threshold } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, jsonBody, useServer } from '../../test/harness.ts';

describe.each(backends)('threshold baselines on $name', (backend) => {
  const server = useServer(backend);

  it("refuses another private project's run as a baseline, and a run that does not exist", async () => {
    const name = `baseline-scope-${Date.now()}`;
    const mine = await server.json('/projects', jsonBody({ name, visibility: 'private' }), project);
    const theirs = await server.json(
      '/projects',
      jsonBody({ name: `${name}-other`, visibility: 'private' }),
      project,
    );
    const token = await server.json(
      `/projects/${mine.body.id}/tokens`,
      jsonBody({ name: 'ci' }),
      createdToken,
    );
    const asMine = { authorization: `Bearer ${token.body.token}` };
    const runOf = async (projectId: string) =>
      (
        await server.json(
          '/runs',
          jsonBody({ project: projectId, benchmark: name, scenario: 's', mesh: { name: 'istio' } }),
          run,
        )
      ).body.id;
    const own = await runOf(mine.body.id);
    const secret = await runOf(theirs.body.id);
    const create = (baseline: string) =>
      server.json(
        `/projects/${mine.body.id}/thresholds`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...asMine },
          body: JSON.stringify({ benchmark: name, rule: 'p99>+10%', baseline }),
        },
        apiError,
      );

    const refused = await create(secret);
    expect(refused.status).toBe(403);
    const missing = await create('00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'invalid_threshold', field: 'baseline' });
    expect(missing.body.message).toContain('no run "00000000-0000-4000-8000-000000000000"');
    // Nothing was kept of either.
    const kept = await server.json(`/projects/${mine.body.id}/thresholds`, { headers: asMine });
    expect(kept.body).toEqual([]);

    // Its own project's run, and a branch, are baselines.
    const ok = await server.json(
      `/projects/${mine.body.id}/thresholds`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...asMine },
        body: JSON.stringify({ benchmark: name, rule: 'p99>+10%', baseline: own }),
      },
      threshold,
    );
    expect(ok.status).toBe(201);
    expect(ok.body.baseline).toBe(own);
  });
});
