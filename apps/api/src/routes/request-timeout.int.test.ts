// MESHBENCH_REQUEST_TIMEOUT_MS bounds a whole request: a body that keeps arriving, fast
// enough for the idle timeout and with no minimum rate, is answered 408 once the request
// has taken longer than it. Before, the timeout was set on the server after it was made,
// which Node 20 does not act on, and such a body was read for as long as it kept coming.
import { describe, expect, it } from 'vitest';
import { backends, createRun, useServer } from '../test/harness.ts';
import { rawUpload, statusOf } from '../test/raw-upload.ts';

const TIMEOUT_MS = 1000;

describe.each(backends)('request timeout ($name)', (backend) => {
  const server = useServer(backend, {
    MESHBENCH_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
    MESHBENCH_BODY_MIN_RATE: '0',
    MESHBENCH_BODY_TIMEOUT_MS: '60000',
  });

  it('answers 408 to a body still arriving past the request timeout', async () => {
    const run = await createRun(server);
    const line = `${JSON.stringify({ type: 'change', id: 'c1', kind: 'endpoint', target: 't', action: 'delete', at: '2026-02-01T10:00:00Z' })}\n`;
    const body = Buffer.from(line.repeat(400));
    const upload = await rawUpload(server.url, `/api/v1/runs/${run.id}/events`, {
      token: server.token,
      contentLength: body.length,
      start: body.subarray(0, 10),
    });
    const started = performance.now();
    // 10 bytes every 100 ms: never idle, and the whole body would take about 400 s.
    let sent = 10;
    const trickle = setInterval(() => {
      if (upload.socket.destroyed) return;
      upload.send(body.subarray(sent, sent + 10));
      sent += 10;
    }, 100);
    try {
      const answer = await Promise.race([
        upload.response,
        new Promise<string>((r) => setTimeout(() => r('no answer within 20 s'), 20_000)),
      ]);
      const tookMs = performance.now() - started;
      expect(statusOf(answer), answer.slice(0, 200)).toBe(408);
      // The timeout, plus at most one check interval (half of it), plus a busy machine.
      expect(tookMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(tookMs).toBeLessThan(15_000);
    } finally {
      clearInterval(trickle);
      upload.abort();
    }
  }, 30_000);
});
