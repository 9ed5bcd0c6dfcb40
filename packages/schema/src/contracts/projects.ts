// The projects group: projects, their tokens, detection and retention settings.
import { z } from 'zod';
import { defineRoutes } from '../contract.ts';
import { apiError } from '../errors.ts';
import {
  createdToken,
  createProjectBody,
  createTokenBody,
  project,
  projectDetection,
  projectRetention,
  putDetectionBody,
  putRetentionBody,
  tokenInfo,
} from '../projects.ts';

const projectParams = z.object({ id: z.string().min(1).describe('project id or name') });
const errors = { 400: apiError, 401: apiError, 403: apiError, 404: apiError };

export const projectsRoutes = defineRoutes({
  create: {
    method: 'POST',
    path: '/projects',
    tags: ['projects'],
    summary: 'Create a project',
    description: 'Needs the admin token.',
    body: createProjectBody,
    responses: { 201: project, ...errors, 409: apiError },
    bearer: true,
  },
  list: {
    method: 'GET',
    path: '/projects',
    tags: ['projects'],
    summary: 'The projects this token may read',
    description: 'The projects whose runs this token (or nobody) may read.',
    responses: { 200: z.array(project), 401: apiError },
  },
  createToken: {
    method: 'POST',
    path: '/projects/:id/tokens',
    tags: ['projects'],
    summary: 'Create a write token',
    description:
      'A new write token for the project (admin, or a token of the project). The token is in this response only; it is stored as a hash.',
    params: projectParams,
    body: createTokenBody,
    responses: { 201: createdToken, ...errors },
    bearer: true,
  },
  tokens: {
    method: 'GET',
    path: '/projects/:id/tokens',
    tags: ['projects'],
    summary: "A project's tokens",
    params: projectParams,
    responses: { 200: z.array(tokenInfo), ...errors },
    bearer: true,
  },
  detection: {
    method: 'GET',
    path: '/projects/:id/detection',
    tags: ['projects'],
    summary: "A project's change-point detection settings",
    description:
      "The project's change-point detection settings: what GET /history and the alerts at a run's finish use where a request sets none; the defaults where the project set none.",
    params: projectParams,
    responses: { 200: projectDetection, 401: apiError, 404: apiError },
  },
  setDetection: {
    method: 'PUT',
    path: '/projects/:id/detection',
    tags: ['projects'],
    summary: "Set a project's change-point detection",
    description:
      "Sets the whole of the project's detection settings (admin, or a token of the project); a field left out goes back to its default, {} restores every default.",
    params: projectParams,
    body: putDetectionBody,
    responses: { 200: projectDetection, ...errors },
    bearer: true,
  },
  retention: {
    method: 'GET',
    path: '/projects/:id/retention',
    tags: ['projects'],
    summary: "A project's raw data retention",
    description:
      "The project's raw data retention: days a run's raw rows are kept after its last activity (null: for ever), and how many of its runs have had them dropped.",
    params: projectParams,
    responses: { 200: projectRetention, 401: apiError, 404: apiError },
  },
  setRetention: {
    method: 'PUT',
    path: '/projects/:id/retention',
    tags: ['projects'],
    summary: "Set a project's raw data retention",
    description:
      "Sets the project's raw data retention (admin, or a token of the project). Once a run is done and older than this many days (its finish, else its start, and never before it was stored), a background sweep drops its observations, incidents, lifecycle events, clock reports, metric points and load intervals, keeping its summaries, history values and load results. Runs pinned as a threshold's baseline or in a report, runs still running, and finished runs whose history facts are not current keep everything. null keeps raw rows for ever.",
    params: projectParams,
    body: putRetentionBody,
    responses: { 200: projectRetention, ...errors },
    bearer: true,
  },
  revokeToken: {
    method: 'DELETE',
    path: '/tokens/:id',
    tags: ['projects'],
    summary: 'Revoke a token',
    description: 'Revokes a token at once.',
    params: z.object({ id: z.uuid() }),
    responses: { 204: z.null(), ...errors },
    bearer: true,
  },
});
