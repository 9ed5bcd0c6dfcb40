// The demo's live scale-up, shortened: posted as it happens through the public API, its live
// stream shows the joined count growing, then ends with every node joined.
import { describe, expect, it } from 'vitest';
import { backends, useServer } from '../test/harness.ts';
import { openLive } from '../test/live-reader.ts';
import { startLiveScaleUp } from './live.ts';

describe.each(backends)('live demo on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_LIVE_POLL_MS: '50' });

  it('posts a scale-up as it happens and finishes it', { timeout: 60_000 }, async () => {
    const demo = await startLiveScaleUp({
      baseUrl: server.url,
      token: server.token,
      durationMs: 12_000,
      tickMs: 200,
    });
    const viewer = await openLive(server.url, demo.run.id);
    const joined = (e: { state: { timeline: { phases: { phase: string; count: number }[] } } }) =>
      e.state.timeline.phases.find((p) => p.phase === 'joined')?.count ?? 0;
    const end = await viewer.next((e) => e.type === 'end', 40_000);
    await demo.done;
    const counts = viewer.events.map(joined);
    // It moved: more than one distinct count seen before the end, never going back.
    expect(new Set(counts).size).toBeGreaterThan(2);
    for (let i = 1; i < counts.length; i++)
      expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1] as number);
    expect(joined(end)).toBe(300);
    expect(end.state.run.status).toBe('finished');
  });
});
