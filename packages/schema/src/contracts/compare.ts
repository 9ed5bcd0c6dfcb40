// The compare group: the compare page's first read, whether runs can be held against each
// other, and which of their differences are beyond noise.

import {
  comparability,
  comparabilityQuery,
  compareSignificance,
  compareSignificanceQuery,
} from '../comparability.ts';
import { compareView, compareViewQuery } from '../compare-view.ts';
import { defineRoutes } from '../contract.ts';
import { apiError } from '../errors.ts';

export const compareRoutes = defineRoutes({
  view: {
    method: 'GET',
    path: '/compare',
    tags: ['compare'],
    summary: "What the compare page's table needs, in one read",
    description:
      "The runs compared (2 to 4, the first the baseline), each run's changes, the summary of each change the compare page pairs (the same change id where every run has it, else each run's first) as GET /runs/{id}/changes/{changeId}/propagation answers it with this read's percentiles, withinMs, bins and scale, the runs' headlines, their comparability (GET /compare/comparability), and per run whether it has load results and a timeline to ask for. Read in a fixed number of queries, however many runs.",
    query: compareViewQuery,
    responses: {
      200: compareView,
      400: apiError,
      401: apiError,
      403: apiError,
      404: apiError,
    },
  },
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
