// Validates one decoded probe event. ajv, compiled from the shared zod schema, is the fast
// path for the 100k-line batches; zod itself words the error when a line fails.
import {
  changeEvent,
  clockEvent,
  eventTypes,
  incidentEvent,
  lifecycleEvent,
  observationEvent,
  type ProbeEvent,
  probeEvent,
} from '@meshbench/schema';
import { Ajv } from 'ajv';
import { z } from 'zod';

const ajv = new Ajv({ strict: false, allErrors: false, formats: { 'date-time': true } });

/**
 * The JSON Schema of probe events without the timestamp regex: every timestamp is parsed
 * (and so fully validated, calendar included) by the batch assembler, so the fast path
 * need not match it twice.
 */
function withoutTimestampPatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutTimestampPatterns);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  const isTimestamp = (schema as { format?: unknown }).format === 'date-time';
  for (const [key, value] of Object.entries(schema)) {
    if (isTimestamp && key === 'pattern') continue;
    out[key] = withoutTimestampPatterns(value);
  }
  return out;
}

const compile = (schema: z.ZodType) =>
  ajv.compile(
    withoutTimestampPatterns(z.toJSONSchema(schema, { target: 'draft-07', io: 'input' })) as object,
  );

/** One validator per event type, picked by `type`: no trying each member of the union. */
const fastChecks = new Map<unknown, (value: unknown) => boolean>([
  ['change', compile(changeEvent)],
  ['observation', compile(observationEvent)],
  ['incident', compile(incidentEvent)],
  ['lifecycle', compile(lifecycleEvent)],
  ['clock', compile(clockEvent)],
]);

export interface EventProblem {
  field: string | undefined;
  message: string;
}

/** Checks the shape; timestamps are only checked to be strings here (see above). */
export function checkEvent(value: unknown): ProbeEvent | EventProblem {
  if (typeof value === 'object' && value !== null) {
    const check = fastChecks.get((value as { type?: unknown }).type);
    if (check?.(value)) return value as ProbeEvent;
  }
  return explain(value);
}

export function isProblem(v: ProbeEvent | EventProblem): v is EventProblem {
  return 'message' in v && !('type' in v);
}

function explain(value: unknown): EventProblem {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { field: undefined, message: 'an event must be a JSON object' };
  }
  const type = (value as { type?: unknown }).type;
  if (type === undefined) {
    return { field: 'type', message: `missing "type"; expected one of ${eventTypes.join(', ')}` };
  }
  if (typeof type !== 'string' || !(eventTypes as readonly string[]).includes(type)) {
    return {
      field: 'type',
      message: `unknown event type ${JSON.stringify(type)}; expected one of ${eventTypes.join(', ')}`,
    };
  }
  const result = probeEvent.safeParse(value);
  const issue = result.success ? undefined : result.error.issues[0];
  if (!issue) return { field: undefined, message: 'invalid event' };
  const a = /^[aeiou]/.test(type) ? 'an' : 'a';
  if (issue.code === 'unrecognized_keys') {
    return {
      field: issue.keys[0],
      message: `unknown field "${issue.keys[0]}" in ${a} ${type} event`,
    };
  }
  const field = issue.path.join('.');
  const got = field ? (value as Record<string, unknown>)[String(issue.path[0])] : undefined;
  const message =
    issue.code === 'invalid_type' && got === undefined
      ? `missing required field "${field}" in ${a} ${type} event`
      : `"${field}" ${issue.message}`;
  return { field: field || undefined, message };
}
