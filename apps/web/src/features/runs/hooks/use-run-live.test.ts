// A live state's churn answers the churn section's own query: the same key, so the page's
// per-change table, pooled distribution and heatmap move with the stream.
import { LIVE_CHURN_QUERY } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { LIVE_CHURN_PARAMS } from './use-run-live.ts';

describe('live churn key', () => {
  it('is the churn section query with the page defaults, which the server reads churn with', () => {
    expect(LIVE_CHURN_PARAMS).toEqual(LIVE_CHURN_QUERY);
  });
});
