// Probe events: what runners post to /runs/{id}/events, one per NDJSON line.
import { z } from 'zod';
import { timestamp } from './time.ts';

const id = z.string().min(1).max(200);
const attrs = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

export const changeEvent = z.strictObject({
  type: z.literal('change'),
  id: id.meta({ example: 'c1' }),
  kind: z.string().min(1).max(100).meta({ example: 'endpoint' }),
  target: z.string().min(1).max(500).meta({ example: 'hey' }),
  action: z.string().min(1).max(100).meta({ example: 'delete' }),
  at: timestamp,
  expected: z.number().int().positive().optional().describe('proxies that must apply it'),
});
export type ChangeEvent = z.infer<typeof changeEvent>;

export const observationEvent = z.strictObject({
  type: z.literal('observation'),
  change: id,
  proxy: id.meta({ example: 'a17-sidecar' }),
  node: z.string().max(200).optional().meta({ example: 'n-0042' }),
  at: timestamp,
  cause: z.string().max(100).optional().meta({ example: 'reconnect-backoff' }),
  attrs: attrs.optional(),
});
export type ObservationEvent = z.infer<typeof observationEvent>;

export const incidentEvent = z.strictObject({
  type: z.literal('incident'),
  kind: z.string().min(1).max(100).meta({ example: 'reconnect' }),
  node: z.string().max(200).optional(),
  proxy: z.string().max(200).optional(),
  from: timestamp,
  to: timestamp.optional(),
  attrs: attrs.optional(),
});
export type IncidentEvent = z.infer<typeof incidentEvent>;

export const lifecycleEvent = z.strictObject({
  type: z.literal('lifecycle'),
  phase: z.string().min(1).max(100).meta({ example: 'running' }),
  entity: z.string().min(1).max(200).meta({ example: 'alloc-9' }),
  node: z.string().max(200).optional(),
  at: timestamp,
  attrs: attrs.optional(),
});
export type LifecycleEvent = z.infer<typeof lifecycleEvent>;

export const eventTypes = ['change', 'observation', 'incident', 'lifecycle'] as const;
export type EventType = (typeof eventTypes)[number];

export const probeEvent = z.discriminatedUnion('type', [
  changeEvent,
  observationEvent,
  incidentEvent,
  lifecycleEvent,
]);
export type ProbeEvent = z.infer<typeof probeEvent>;

export const eventBatch = z.array(probeEvent);

export const ingestResult = z.object({
  accepted: z.number().int().describe('events stored by this batch (or by its first delivery)'),
  duplicate: z.boolean().describe('true when the Idempotency-Key was seen before'),
});
export type IngestResult = z.infer<typeof ingestResult>;
