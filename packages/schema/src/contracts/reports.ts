// The reports group: frozen views of runs, shared by link.
import { z } from 'zod';
import { defineRoutes } from '../contract.ts';
import { apiError } from '../errors.ts';
import { createdReport, createReportBody, report } from '../reports.ts';

const slugParams = z.object({ slug: z.string().min(1).max(100) });

export const reportsRoutes = defineRoutes({
  create: {
    method: 'POST',
    path: '/reports',
    tags: ['reports'],
    summary: 'Freeze runs into a shared report',
    description:
      'Freezes what the run page (one run) or the comparison page (2-4 runs, the first the baseline) shows into a report at /r/{slug}, readable by anyone with the link, without a token.',
    body: createReportBody,
    responses: { 201: createdReport, 400: apiError, 401: apiError, 404: apiError },
    bearer: true,
  },
  get: {
    method: 'GET',
    path: '/reports/:slug',
    tags: ['reports'],
    summary: 'A shared report',
    params: slugParams,
    responses: { 200: report, 404: apiError },
  },
  delete: {
    method: 'DELETE',
    path: '/reports/:slug',
    tags: ['reports'],
    summary: 'Delete a report',
    params: slugParams,
    responses: { 204: z.null(), 401: apiError, 404: apiError },
    bearer: true,
  },
});
