import { describe, expect, it } from 'vitest';
import { point } from './load-results.fixture.ts';
import { loadVerdicts } from './load-verdicts.ts';

describe('loadVerdicts', () => {
  it("lists the runner's thresholds with what was crossed, and points that sent nothing", () => {
    const verdicts = loadVerdicts([
      point('both', 16, { format: 'k6', labels: {} }),
      point('unspecified', null, {
        format: 'k6',
        thresholds: [
          { metric: 'http_req_duration', threshold: 'p(95)<500', ok: false },
          { metric: 'http_req_failed', threshold: 'rate<0.01', ok: true },
        ],
      }),
      point('baseline', 2, { labels: { label: 'baseline 0 qps' }, requests: 0 }),
      { ...point('both', 16, { requests: 0 }), id: null },
    ]);
    expect(verdicts).toEqual([
      {
        point: 'k6',
        thresholds: [
          { metric: 'http_req_duration', threshold: 'p(95)<500', ok: false },
          { metric: 'http_req_failed', threshold: 'rate<0.01', ok: true },
        ],
        crossed: 1,
        nothingSent: false,
      },
      {
        point: 'baseline 0 qps · baseline · fortio',
        thresholds: [],
        crossed: 0,
        nothingSent: true,
      },
    ]);
  });
});
