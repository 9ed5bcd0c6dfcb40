// The compare group: whether runs can be held against each other, and which of their
// differences are beyond noise.

import {
  comparability,
  comparabilityQuery,
  compareSignificance,
  compareSignificanceQuery,
} from '../comparability.ts';
import { defineRoutes } from '../contract.ts';
import { apiError } from '../errors.ts';

export const compareRoutes = defineRoutes({
  comparability: {
    method: 'GET',
    path: '/compare/comparability',
    tags: ['compare'],
    summary: 'Whether runs can be compared',
    description:
      "Whether the compared runs can be held against each other, as the compare page's warnings and a gate's not-comparable verdict say it: different topology, a different mesh version when pinned (same=mesh.version), a load point more than 5 % short of its target rate or with its generator saturated (either run), percentiles exact in one run and estimated in the other. Each warning names the numbers.",
    query: comparabilityQuery,
    responses: {
      200: comparability,
      400: apiError,
      401: apiError,
      403: apiError,
      404: apiError,
    },
  },
  significance: {
    method: 'GET',
    path: '/compare/significance',
    tags: ['compare'],
    summary: "Bootstrap intervals of the compared runs' percentile differences",
    description:
      "For each compared run but the baseline (the first), each asked percentile of its change's raw latencies (first applications, raw clock) against the baseline's change: the difference, its exact 95 % bootstrap interval (the one the gates compute: quantile-bootstrap.ts, no random draws) and a verdict: regressed or improved when the interval excludes 0, no-significant-change when it holds 0, not-comparable when either run keeps no raw latencies of the change. What the compare page colours by.",
    query: compareSignificanceQuery,
    responses: {
      200: compareSignificance,
      400: apiError,
      401: apiError,
      403: apiError,
      404: apiError,
    },
  },
});
