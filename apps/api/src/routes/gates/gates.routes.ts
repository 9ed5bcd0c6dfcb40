// Regression gates: a project's thresholds, a finished run's verdict, and one number across
// runs (history). The verdict itself is made when a run finishes (PATCH /runs/{id}).
import {
  alert,
  alertsQuery,
  apiError,
  createThresholdBody,
  gateResult,
  gateVerdict,
  history,
  historyQuery,
  loadGateQuery,
  significanceAnswer,
  significanceQuery,
  threshold,
  updateAlertBody,
} from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const runParams = z.object({ id: z.string().min(1).describe('run id or share slug') });
const projectParams = z.object({ id: z.string().min(1).describe('project id or name') });
const errors = { 400: apiError, 401: apiError, 403: apiError, 404: apiError };

const routes: FastifyPluginAsyncZod = async (app) => {
  const { gates } = app.services;
  const write = { schema: { security: [{ bearer: [] }] } };

  app.get(
    '/runs/:id/gate',
    {
      schema: {
        tags: ['gates'],
        description: "The verdict of the project's thresholds on the run, from when it finished.",
        params: runParams,
        response: { 200: gateResult, 404: apiError },
      },
    },
    async (request) => gates.result(request.params.id),
  );

  app.get(
    '/projects/:id/alerts',
    {
      schema: {
        tags: ['gates'],
        description:
          "The project's alerts, newest first: change points its runs' finishes found in their series (benchmark, scenario, mesh, branch), one series per alerting metric (`series.metric`: p50, p99, within1s, max, joined100, cpuPeak, loadP99, achievedRps), and failed gates; each with its state and log.",
        params: projectParams,
        querystring: alertsQuery,
        response: { 200: z.array(alert), 404: apiError },
      },
    },
    async (request) => gates.alerts(request.params.id, request.query.state, request.principal),
  );

  app.patch(
    '/alerts/:id',
    {
      ...write,
      schema: {
        ...write.schema,
        tags: ['gates'],
        description:
          'Triage: open, acknowledge or dismiss (with a reason) an alert; the log keeps who (token name) did what when. A dismissed change point stays dismissed when later runs arrive.',
        params: z.object({ id: z.uuid() }),
        body: updateAlertBody,
        response: { 200: alert, ...errors },
      },
    },
    async (request) => gates.updateAlert(request.params.id, request.body, request.principal),
  );

  app.get(
    '/runs/:id/significance',
    {
      schema: {
        tags: ['gates'],
        description:
          "Whether a percentile of the run's first change moved beyond noise against a baseline: the exact bootstrap interval of the difference, the noise floor of runs labelled repeat, and a verdict (regressed, improved, no-significant-change, not-comparable). What a threshold's percentile rule tests, and what the CLI's --gate asks.",
        params: runParams,
        querystring: significanceQuery,
        response: {
          200: significanceAnswer,
          400: apiError,
          401: apiError,
          403: apiError,
          404: apiError,
        },
      },
    },
    async (request) => gates.significance(request.params.id, request.query, request.principal),
  );

  app.get(
    '/runs/:id/load-gate',
    {
      schema: {
        tags: ['gates'],
        description:
          "A data-plane rule (load.p99>+10%, load.rps<-5%, load.errors>+1pp) held at each load step the run and its baseline share: per step a verdict (regressed, improved, no-significant-change, not-comparable) and why. Latency rules on steps that both hold an HdrHistogram are significance-tested (the exact bootstrap interval of the percentile difference from the bucket counts, the noise floor of runs labelled repeat, the HdrHistogram buckets); others hold the fixed rule alone and say so. What a threshold's load rule does when a run finishes, and what the CLI's --fail-on load.* asks.",
        params: runParams,
        querystring: loadGateQuery,
        response: { 200: gateVerdict, 400: apiError, 404: apiError },
      },
    },
    async (request) =>
      app.services.loadGate.evaluate(request.params.id, request.query, request.principal),
  );

  app.get(
    '/history',
    {
      schema: {
        tags: ['gates'],
        description:
          "One metric of each run of a benchmark, oldest first: propagation (P99, P96, within 1 s... of the first change), scale-up (time to N % joined, control-plane CPU) or data plane (latency, rate and errors at one load point), with each series' change points.",
        querystring: historyQuery,
        response: { 200: history, 400: apiError },
      },
    },
    async (request) => app.services.history.history(request.query, request.principal),
  );

  app.post(
    '/projects/:id/thresholds',
    {
      ...write,
      schema: {
        ...write.schema,
        tags: ['gates'],
        description:
          'A rule every finished run of the benchmark (and scenario, if given) in this project is held to.',
        params: projectParams,
        body: createThresholdBody,
        response: { 201: threshold, ...errors },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await gates.createThreshold(request.params.id, request.body, request.principal)),
  );

  app.get(
    '/projects/:id/thresholds',
    {
      ...write,
      schema: {
        ...write.schema,
        tags: ['gates'],
        params: projectParams,
        response: { 200: z.array(threshold), ...errors },
      },
    },
    async (request) => gates.thresholds(request.params.id, request.principal),
  );

  app.delete(
    '/thresholds/:id',
    {
      ...write,
      schema: {
        ...write.schema,
        tags: ['gates'],
        params: z.object({ id: z.uuid() }),
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await gates.deleteThreshold(request.params.id, request.principal);
      return reply.code(204).send(null);
    },
  );
};
export default routes;
