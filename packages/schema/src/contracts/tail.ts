// The tail group: why a change's slowest proxies were slow, and what sets them apart.
import { z } from 'zod';
import { defineRoutes } from '../contract.ts';
import { apiError } from '../errors.ts';
import {
  DEFAULT_TAIL_THRESHOLD_MS,
  TAIL_FALLBACK_PERCENTILE,
  TAIL_MAX_THRESHOLD_SHARE,
  tail,
  tailQuery,
} from '../tail.ts';
import {
  ATTRIBUTION_MIN_TAIL_COUNT,
  ATTRIBUTION_MIN_TAIL_SHARE,
  ATTRIBUTION_STANDS_OUT_LIFT,
  DEFAULT_ATTRIBUTION_PERCENTILE,
  tailAttribution,
  tailAttributionQuery,
} from '../tail-attribution.ts';
import { NO_CAUSE_DESCRIPTION } from '../tail-cause-names.ts';

const params = z.object({
  id: z.string().min(1).describe('run id or share slug'),
  changeId: z.string().min(1),
});

const description = `The tail of a change, by cause.

- The tail: proxies whose FIRST application of the change (later reports are repeats and
  never count) is slower than the threshold, latency = observation.at - change.at >
  threshold (strictly). The threshold is \`thresholdMs\` or, with \`thresholdP\`, the
  change's nearest-rank percentile (so \`thresholdP=99\` means "slower than P99"). Giving
  both is a 400.
- Giving neither: ${DEFAULT_TAIL_THRESHOLD_MS} ms (\`cutRule\` "default"), unless more than
  ${TAIL_MAX_THRESHOLD_SHARE * 100} % of the proxies that applied the change are slower than that, i.e. its
  nearest-rank median (\`medianMs\`) is: a "tail" that is most of the run describes its body,
  and its causes are mostly "unexplained". Then the tail is the proxies slower than
  P${TAIL_FALLBACK_PERCENTILE} (\`cutRule\` "fallback", \`thresholdP\` ${TAIL_FALLBACK_PERCENTILE}). Ask for
  \`thresholdMs=${DEFAULT_TAIL_THRESHOLD_MS}\` to keep the threshold. \`cut\` says which kind of cut was used.
- Each cause carries \`description\`, what the name means (docs/tail.md), or "${NO_CAUSE_DESCRIPTION}"
  (\`described\` false) for a name the dictionary does not know.
- One cause per tail proxy, the first that applies: (1) the \`cause\` the runner sent on
  that first-application observation; (2) an incident overlapping the interval from the
  change to the observation (incident.from <= observation.at and (incident.to is null or
  incident.to >= change.at), ends inclusive), named by its kind as sent; an incident naming
  a proxy is about that proxy only, one naming only a node is about every proxy on it; a
  proxy-level incident wins over a node-level one, then the longest overlap with the
  interval, then the earliest \`from\`, then the kind alphabetically; (3) "unexplained".
- Expected proxies that never applied the change (expected - count, when the change
  declares \`expected\`) are one row, "never-converged", without percentiles.
- \`share\` = count / (tailCount + neverConverged); percentiles are nearest-rank P50, P90,
  P99 of each cause's latencies; causes by count, largest first; \`slowest\` (up to
  \`limit\`) slowest first, with the incident a cause was taken from.

- Latencies: corrected for the nodes' clocks when the run has clock reports (\`clock\`
  "corrected", with \`clockErrorMs\`, the largest error of a corrected latency), else raw
  (\`clock\` "raw"); \`?clock=raw\` asks for raw ones, \`?clock=corrected\` of a run without
  reports is a 409.

\`Accept: text/csv\` (or ?format=csv) gives the causes table as CSV, its last column \`clock\`.`;

const attributionDescription = `What sets the tail of a change apart: every attribute value its
proxies carry, ranked by how over-represented it is among the slowest (BubbleUp-style).

- Population: each proxy's FIRST application of the change (as for the tail). The tail: those
  with latency > the cut (strictly): \`thresholdMs\`, or the change's nearest-rank
  \`thresholdP\` (default P${DEFAULT_ATTRIBUTION_PERCENTILE} when neither is given); both is a 400.
- Attributes: \`node\`; \`cause\` (the runner's, on the first application); each key of the
  observation's \`attrs\` (az, pool, server...; \`attrs.<key>\` for a key named node, cause or
  incident); \`incident\`, the kind of every incident on the proxy (or, naming no proxy, on its
  node) that overlaps change -> application, and \`incident.<key>\` for that incident's attrs.
- For each value: \`inTail\` and \`overall\` proxies carrying it (exact counts, tail included in
  overall), \`share\` = inTail / tailCount, \`lift\` = share / (overall / total).
- Ranked by excess share, share - overall / total (the part of the tail a value covers beyond
  what its size predicts, = share x (1 - 1 / lift): lift alone ties every value found only in
  the tail, however little of it it covers), then lift, then inTail, then attribute and value;
  only values on at least
  max(${ATTRIBUTION_MIN_TAIL_COUNT}, ceil(${ATTRIBUTION_MIN_TAIL_SHARE * 100} % of tailCount)) tail proxies (\`minTailCount\`); the top \`limit\`.
  A lift under ${ATTRIBUTION_STANDS_OUT_LIFT} means the value is about as common in the tail as overall: nothing stands out.
- Latencies: corrected for the nodes' clocks when the run has clock reports (\`clock\`
  "corrected": a node whose clock runs behind would otherwise hide its slow proxies), else raw;
  \`?clock=raw\` asks for raw ones.`;

export const tailRoutes = defineRoutes({
  attribution: {
    method: 'GET',
    path: '/runs/:id/changes/:changeId/tail/attribution',
    tags: ['propagation'],
    summary: 'What sets the tail of a change apart',
    description: attributionDescription,
    params,
    query: tailAttributionQuery,
    responses: { 200: tailAttribution, 400: apiError, 404: apiError, 409: apiError },
  },
  tail: {
    method: 'GET',
    path: '/runs/:id/changes/:changeId/tail',
    tags: ['propagation'],
    summary: 'The tail of a change, by cause',
    description,
    params,
    query: tailQuery,
    responses: { 200: tail, 400: apiError, 404: apiError, 409: apiError },
  },
});
