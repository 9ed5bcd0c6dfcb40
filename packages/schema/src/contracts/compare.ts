// The compare group: whether runs can be held against each other.

import { comparability, comparabilityQuery } from '../comparability.ts';
import { defineRoutes } from '../contract.ts';
import { apiError } from '../errors.ts';

export const compareRoutes = defineRoutes({
  comparability: {
    method: 'GET',
    path: '/compare/comparability',
    tags: ['compare'],
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
});
