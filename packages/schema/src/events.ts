// Probe events: what runners post to /runs/{id}/events, one per NDJSON line.
import { z } from 'zod';
import { MAX_DURATION_MS, timestamp } from './time.ts';

const id = z.string().min(1).max(200);
const attrs = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

export const changeEvent = z.strictObject({
  type: z.literal('change'),
  id: id.meta({ example: 'c1' }),
  kind: z.string().min(1).max(100).meta({ example: 'endpoint' }),
  target: z.string().min(1).max(500).meta({ example: 'hey' }),
  action: z.string().min(1).max(100).meta({ example: 'delete' }),
  at: timestamp,
  expected: z
    .number()
    .int()
    .positive()
    .max(2_147_483_647)
    .optional()
    .describe('proxies that must apply it'),
});
export type ChangeEvent = z.infer<typeof changeEvent>;

export const observationEvent = z.strictObject({
  type: z.literal('observation'),
  change: id,
  proxy: id.meta({ example: 'a17-sidecar' }),
  node: z.string().max(200).optional().meta({ example: 'n-0042' }),
  at: timestamp,
  cause: z.string().max(100).optional().meta({ example: 'reconnect-backoff' }),
  stage: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(
      'how far the change had got on this proxy when seen; free text, conventionally `received` (the proxy got the config from the control plane), `acked` (it ACKed it, as an xDS ACK), `applied` (it took it into its config) or `serving` (traffic was seen served by it: a data-plane probe). Without a stage an observation is `applied`',
    )
    .meta({ example: 'received' }),
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

const ntpTimestamp = (what: string) =>
  timestamp.optional().describe(`${what}; with t1..t4, all four or none`);

/**
 * What a runner knows of a node's clock. Our sign convention everywhere: the offset is
 * the node's clock minus the reference clock, positive when the node's clock is ahead
 * (chrony's `System time ... fast/slow`, reported the other way round, is the reference
 * minus the node's: negate it). Either form, or both:
 * - `offsetMs` with `errorMs` (the most the offset can be wrong by), at `at` on the
 *   reference clock;
 * - `t1`..`t4`, an NTP-style exchange: t1 the node sends, t2 the reference receives, t3
 *   the reference sends, t4 the node receives (t1, t4 on the node's clock; t2, t3 on the
 *   reference's). RFC 5905 section 8 gives theta = ((t2 - t1) + (t3 - t4)) / 2 as the
 *   reference minus the node, and the round-trip delay delta = (t4 - t1) - (t3 - t2); the
 *   true offset lies within delta / 2 of theta whatever the one-way delays (each >= 0).
 *   So offset = -theta and error = delta / 2; `at` defaults to the midpoint of t2 and t3.
 * Given both, they must agree within their errors; the tighter interval both allow is kept.
 */
export const clockEvent = z.strictObject({
  type: z.literal('clock'),
  node: z.string().min(1).max(200).meta({ example: 'n-0042' }),
  at: timestamp
    .optional()
    .describe(
      'when, on the reference clock (required without t1..t4; default: midpoint of t2, t3)',
    ),
  offsetMs: z
    .number()
    .min(-MAX_DURATION_MS)
    .max(MAX_DURATION_MS)
    .optional()
    .describe(
      "the node's clock minus the reference clock, ms: positive when the node's clock is ahead",
    )
    .meta({ example: -3.2 }),
  errorMs: z
    .number()
    .nonnegative()
    .max(MAX_DURATION_MS)
    .optional()
    .describe('the most offsetMs can be wrong by, ms (required with offsetMs)')
    .meta({ example: 0.8 }),
  t1: ntpTimestamp("the node sent the request, on the node's clock"),
  t2: ntpTimestamp("the reference received it, on the reference's clock"),
  t3: ntpTimestamp("the reference sent its answer, on the reference's clock"),
  t4: ntpTimestamp("the node received the answer, on the node's clock"),
});
export type ClockEvent = z.infer<typeof clockEvent>;

export const probeEvent = z.discriminatedUnion('type', [
  changeEvent,
  observationEvent,
  incidentEvent,
  lifecycleEvent,
  clockEvent,
]);
export type ProbeEvent = z.infer<typeof probeEvent>;
export type EventType = ProbeEvent['type'];
/** The event types, in the union's order: read from it, not written again. */
export const eventTypes: readonly EventType[] = probeEvent.options.map((o) => o.shape.type.value);

export const eventBatch = z.array(probeEvent);

export const ingestResult = z.object({
  accepted: z.number().int().describe('events stored by this batch (or by its first delivery)'),
  duplicate: z.boolean().describe('true when the Idempotency-Key was seen before'),
});
export type IngestResult = z.infer<typeof ingestResult>;

/** What names an input that batches are cut from: the CLI sends a SHA-256 of the file. */
export const eventSource = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'a source is 1-128 letters, digits or . _ : -')
  .meta({ example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' });

const MAX_LINE_NUMBER = 2_147_483_647;

export const eventBatchQuery = z
  .object({
    source: eventSource
      .optional()
      .describe(
        'the input this batch is cut from; with `lines`, a batch of lines already stored from it is refused (409), so sending the input again, however it is cut, stores nothing twice',
      ),
    lines: z
      .string()
      .regex(/^\d{1,10}-\d{1,10}$/, 'lines are FIRST-LAST, e.g. 1-50000')
      .transform((v, ctx) => {
        const [first, last] = v.split('-').map(Number) as [number, number];
        if (first < 1 || last < first || last > MAX_LINE_NUMBER) {
          ctx.addIssue({
            code: 'custom',
            message: `lines must be FIRST-LAST with 1 <= FIRST <= LAST <= ${MAX_LINE_NUMBER}`,
          });
          return z.NEVER;
        }
        return { first, last };
      })
      .optional()
      .describe(
        "the source's lines the body holds, FIRST-LAST (1-based, blank lines counted); errors name lines by these numbers",
      ),
  })
  .refine((q) => (q.source === undefined) === (q.lines === undefined), {
    message: 'source and lines go together',
    path: ['lines'],
  });

export const storedSourceLines = z.object({
  source: eventSource,
  lines: z
    .array(z.tuple([z.number().int(), z.number().int()]))
    .describe("ranges [first, last] of the source's lines stored on the run, in order"),
});
export type StoredSourceLines = z.infer<typeof storedSourceLines>;
