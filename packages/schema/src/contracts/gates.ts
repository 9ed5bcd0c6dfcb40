// The gates group: thresholds, verdicts, alerts, significance and history.
import { z } from 'zod';
import { alert, alertsQuery, updateAlertBody } from '../alerts.ts';
import { defineRoutes } from '../contract.ts';
import { apiError } from '../errors.ts';
import {
  createThresholdBody,
  gateResult,
  gateVerdict,
  history,
  historyQuery,
  loadGateQuery,
  significanceAnswer,
  significanceQuery,
  threshold,
} from '../gates.ts';

const runParams = z.object({ id: z.string().min(1).describe('run id or share slug') });
const projectParams = z.object({ id: z.string().min(1).describe('project id or name') });
const errors = { 400: apiError, 401: apiError, 403: apiError, 404: apiError };

export const gatesRoutes = defineRoutes({
  gate: {
    method: 'GET',
    path: '/runs/:id/gate',
    tags: ['gates'],
    summary: "A run's gate verdict",
    description: "The verdict of the project's thresholds on the run, from when it finished.",
    params: runParams,
    responses: { 200: gateResult, 404: apiError },
  },
  alerts: {
    method: 'GET',
    path: '/projects/:id/alerts',
    tags: ['gates'],
    summary: "A project's alerts",
    description:
      "The project's alerts, newest first: change points its runs' finishes found in their series (benchmark, scenario, mesh, branch), one series per alerting metric (`series.metric`: p50, p99, within1s, max, joined100, cpuPeak, loadP99, achievedRps), and failed gates; each with its state and log.",
    params: projectParams,
    query: alertsQuery,
    responses: { 200: z.array(alert), 404: apiError },
  },
  updateAlert: {
    method: 'PATCH',
    path: '/alerts/:id',
    tags: ['gates'],
    summary: 'Triage an alert',
    description:
      'Triage: open, acknowledge or dismiss (with a reason) an alert; the log keeps who (token name) did what when. A dismissed change point stays dismissed when later runs arrive.',
    params: z.object({ id: z.uuid() }),
    body: updateAlertBody,
    responses: { 200: alert, ...errors },
    bearer: true,
  },
  significance: {
    method: 'GET',
    path: '/runs/:id/significance',
    tags: ['gates'],
    summary: "Whether a run's percentile moved beyond noise",
    description:
      "Whether a percentile of the run's first change moved beyond noise against a baseline: the exact bootstrap interval of the difference, the noise floor of runs labelled repeat, and a verdict (regressed, improved, no-significant-change, not-comparable). What a threshold's percentile rule tests, and what the CLI's --gate asks.",
    params: runParams,
    query: significanceQuery,
    responses: {
      200: significanceAnswer,
      400: apiError,
      401: apiError,
      403: apiError,
      404: apiError,
    },
  },
  loadGate: {
    method: 'GET',
    path: '/runs/:id/load-gate',
    tags: ['gates'],
    summary: 'Hold a run to a data-plane rule',
    description:
      "A data-plane rule (load.p99>+10%, load.rps<-5%, load.errors>+1pp) held at each load step the run and its baseline share: per step a verdict (regressed, improved, no-significant-change, not-comparable) and why. Latency rules on steps that both hold an HdrHistogram are significance-tested (the exact bootstrap interval of the percentile difference from the bucket counts, the noise floor of runs labelled repeat, the HdrHistogram buckets); others hold the fixed rule alone and say so. What a threshold's load rule does when a run finishes, and what the CLI's --fail-on load.* asks.",
    params: runParams,
    query: loadGateQuery,
    responses: { 200: gateVerdict, 400: apiError, 404: apiError },
  },
  history: {
    method: 'GET',
    path: '/history',
    tags: ['gates'],
    summary: 'One metric over the runs of a benchmark',
    description:
      "One metric of each run of a benchmark, oldest first: propagation (P99, P96, within 1 s... of the first change), scale-up (time to N % joined, control-plane CPU) or data plane (latency, rate and errors at one load point), with each series' change points.",
    query: historyQuery,
    responses: { 200: history, 400: apiError },
  },
  createThreshold: {
    method: 'POST',
    path: '/projects/:id/thresholds',
    tags: ['gates'],
    summary: 'Add a threshold to a project',
    description:
      'A rule every finished run of the benchmark (and scenario, if given) in this project is held to.',
    params: projectParams,
    body: createThresholdBody,
    responses: { 201: threshold, ...errors },
    bearer: true,
  },
  thresholds: {
    method: 'GET',
    path: '/projects/:id/thresholds',
    tags: ['gates'],
    summary: "A project's thresholds",
    params: projectParams,
    responses: { 200: z.array(threshold), ...errors },
    bearer: true,
  },
  deleteThreshold: {
    method: 'DELETE',
    path: '/thresholds/:id',
    tags: ['gates'],
    summary: 'Delete a threshold',
    params: z.object({ id: z.uuid() }),
    responses: { 204: z.null(), ...errors },
    bearer: true,
  },
});
