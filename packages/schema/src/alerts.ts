// Alerts: what a person should look at (a change point in a history, a failed gate), its
// state (open, acknowledged, dismissed with a reason) and who did what when.
import { z } from 'zod';

export const ALERT_STATES = ['open', 'acknowledged', 'dismissed'] as const;
export const alertState = z.enum(ALERT_STATES);
export type AlertState = z.infer<typeof alertState>;

export const alertLogEntry = z.object({
  at: z.string(),
  by: z.string().describe('the token name, "admin", or "meshbench" for detection'),
  action: z
    .string()
    .describe(
      'detected, moved (the change point moved to another run), undetected, open, acknowledged, dismissed',
    ),
  reason: z.string().optional(),
  fromRunId: z.string().optional(),
  toRunId: z.string().optional(),
});

export const alert = z.object({
  id: z.uuid(),
  projectId: z.uuid(),
  kind: z.enum(['change-point', 'gate']),
  series: z.object({
    benchmark: z.string(),
    scenario: z.string(),
    mesh: z.string(),
    branch: z.string().nullable(),
    metric: z.string(),
  }),
  runId: z.uuid().describe('the first run after the change, or the run whose gate failed'),
  previousRunId: z.uuid().nullable(),
  details: z.record(z.string(), z.unknown()),
  state: alertState,
  detected: z.boolean().describe('false once later runs no longer show the change point'),
  log: z.array(alertLogEntry),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Alert = z.infer<typeof alert>;

export const alertsQuery = z.object({ state: alertState.optional() });

export const updateAlertBody = z
  .strictObject({
    state: alertState,
    reason: z.string().min(1).max(500).optional().describe('required to dismiss'),
  })
  .refine((b) => b.state !== 'dismissed' || b.reason !== undefined, {
    message: 'a dismissal needs a reason',
    path: ['reason'],
  });
export type UpdateAlertBody = z.infer<typeof updateAlertBody>;
