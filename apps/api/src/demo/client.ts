// How the demo posts: through the public HTTP API, as any runner would.
import { gzipSync } from 'node:zlib';
import type { CreateRunBody, IngestResult, ProbeEvent, Run } from '@meshbench/schema';

export function apiClient(baseUrl: string, token?: string) {
  const headers = (extra: Record<string, string>) => ({
    ...extra,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  });
  async function call<T>(
    method: string,
    path: string,
    body: string | Uint8Array,
    extra: Record<string, string>,
  ): Promise<T> {
    const response = await fetch(`${baseUrl}/api/v1${path}`, {
      method,
      body,
      headers: headers(extra),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }
  return {
    createRun: (run: CreateRunBody) =>
      call<Run>('POST', '/runs', JSON.stringify(run), { 'content-type': 'application/json' }),
    postEvents: (runId: string, events: ProbeEvent[], idempotencyKey: string) =>
      call<IngestResult>(
        'POST',
        `/runs/${runId}/events`,
        gzipSync(events.map((e) => JSON.stringify(e)).join('\n')),
        {
          'content-type': 'application/x-ndjson',
          'content-encoding': 'gzip',
          'idempotency-key': idempotencyKey,
        },
      ),
    postResults: (runId: string, file: string, format = 'auto') =>
      call<{ format: string; imported: number; unmapped: string[] }>(
        'POST',
        `/runs/${runId}/results?format=${format}`,
        file,
        { 'content-type': 'application/octet-stream' },
      ),
    finishRun: (runId: string, finishedAt?: string) =>
      call<Run>('PATCH', `/runs/${runId}`, JSON.stringify(finishedAt ? { finishedAt } : {}), {
        'content-type': 'application/json',
      }),
  };
}
