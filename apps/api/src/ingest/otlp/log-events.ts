// A log record that follows the OpenTelemetry event conventions, named `meshbench.<type>`,
// is the probe event the events API takes: the type from the event name (LogRecord
// event_name, or the older `event.name` attribute), the event's fields from the record's
// attributes of the same names (`attrs.<key>` into its attrs), and its time (`at`; an
// incident's `from`) from the record's time_unix_nano, else observed_time_unix_nano. Checked
// by the events API's own schema (checkEvent, findBadValue). Attributes with a dot in their
// name other than `attrs.*` (the semantic conventions' own, such as `log.file.name` that a
// Collector adds) are not fields of the event and are left out.
import { eventTypes, type ProbeEvent } from '@meshbench/schema';
import { AppError } from '../../errors.ts';
import { checkEvent, isProblem } from '../events/probe-events.ts';
import { findBadValue } from '../stored-text.ts';
import { formatTimestampUs } from '../timestamps.ts';
import {
  type Attributes,
  type AttributeValue,
  recordPath,
  type WireLogRecord,
} from './otlp-logs.ts';
import { RUN_ATTRIBUTE } from './otlp-tags.ts';

export const EVENT_PREFIX = 'meshbench.';
/** The attribute that names an event in records older than LogRecord.event_name. */
export const EVENT_NAME_ATTRIBUTE = 'event.name';
const ATTRS_PREFIX = 'attrs.';
const ENV_ATTRIBUTES = ['deployment.environment.name', 'deployment.environment'];

/** The field that holds the event's time, by type (the record's time goes there). */
export const TIME_FIELD: Record<ProbeEvent['type'], string> = {
  change: 'at',
  observation: 'at',
  incident: 'from',
  lifecycle: 'at',
  clock: 'at',
};

export type LogEvent =
  | {
      kind: 'event';
      record: WireLogRecord;
      event: ProbeEvent;
      /** meshbench.run of the record, else its scope, else its resource. */
      runRef: string | null;
      /** deployment.environment(.name) of the record's resource. */
      env: string | null;
    }
  | { kind: 'other'; record: WireLogRecord; reason: string };

function stringAttribute(attributes: Attributes, key: string): string | null {
  for (const [k, v] of attributes) if (k === key && typeof v === 'string' && v !== '') return v;
  return null;
}

const invalid = (record: WireLogRecord, name: string, field: string | undefined, message: string) =>
  new AppError(400, 'invalid_event', `log record ${recordPath(record)} (${name}): ${message}`, {
    ...(field ? { field } : {}),
  });

/**
 * What a record is: a meshbench event, or something else. The event's shape is not checked
 * here (checkLogEvent does, as the events batch it is stored in does); what only a log
 * record can get wrong is: an unknown meshbench name, the type or time as attributes.
 */
export function logEventOf(record: WireLogRecord): LogEvent {
  const name = record.eventName || stringAttribute(record.attributes, EVENT_NAME_ATTRIBUTE) || '';
  if (!name.startsWith(EVENT_PREFIX)) {
    return {
      kind: 'other',
      record,
      reason: name
        ? `not a meshbench event (event name "${name.slice(0, 100)}")`
        : 'not an event (no event_name nor event.name attribute)',
    };
  }
  const type = name.slice(EVENT_PREFIX.length);
  if (!(eventTypes as readonly string[]).includes(type)) {
    throw invalid(
      record,
      name,
      'event_name',
      `unknown meshbench event; expected one of ${eventTypes.map((t) => EVENT_PREFIX + t).join(', ')}`,
    );
  }
  const eventType = type as ProbeEvent['type'];
  const event: Record<string, AttributeValue> = { type };
  let attrs: Record<string, AttributeValue> | undefined;
  for (const [key, value] of record.attributes) {
    if (key.startsWith(ATTRS_PREFIX)) {
      attrs ??= {};
      attrs[key.slice(ATTRS_PREFIX.length)] = value;
    } else if (!key.includes('.') && key !== 'type') {
      event[key] = value;
    } else if (key === 'type') {
      throw invalid(
        record,
        name,
        'type',
        'the type is the event name; "type" may not be an attribute',
      );
    }
  }
  if (attrs) {
    const given = event.attrs;
    if (
      given !== undefined &&
      (typeof given !== 'object' || given === null || Array.isArray(given))
    )
      throw invalid(record, name, 'attrs', '"attrs" must be a key-value list (kvlistValue)');
    event.attrs = { ...(given ?? {}), ...attrs };
  }
  const timeField = TIME_FIELD[eventType];
  if (timeField in event) {
    throw invalid(
      record,
      name,
      timeField,
      `"${timeField}" is the record's time (time_unix_nano); it may not be an attribute`,
    );
  }
  // A clock report of an NTP-style exchange is at the midpoint of t2 and t3 unless it says.
  const exchange = eventType === 'clock' && 't1' in event;
  if (!exchange) {
    const us = record.timeUs || record.observedUs;
    if (us === 0) {
      throw invalid(
        record,
        name,
        timeField,
        'no time: time_unix_nano and observed_time_unix_nano are both unset',
      );
    }
    // A fixed64 of nanoseconds reaches the year 2554, but microseconds are exact in a number
    // only up to 2^53 - 1: past that the time could not be stored as it was sent.
    if (!Number.isSafeInteger(us)) {
      throw invalid(
        record,
        name,
        timeField,
        'the record time is past 2255-06-05T23:47:34.740991Z, the last microsecond meshbench holds exactly',
      );
    }
    event[timeField] = formatMicros(us);
  }
  let env: string | null = null;
  for (const key of ENV_ATTRIBUTES) env ??= stringAttribute(record.resourceAttributes, key);
  return {
    kind: 'event',
    record,
    // Checked by checkLogEvent, or by the events batch it goes into (see the service).
    event: event as ProbeEvent,
    runRef:
      stringAttribute(record.attributes, RUN_ATTRIBUTE) ??
      stringAttribute(record.scopeAttributes, RUN_ATTRIBUTE) ??
      stringAttribute(record.resourceAttributes, RUN_ATTRIBUTE),
    env,
  };
}

/** Checks a mapped event as the events API checks one: a 400 naming the record and field. */
export function checkLogEvent(mapped: Extract<LogEvent, { kind: 'event' }>): void {
  const name = `${EVENT_PREFIX}${mapped.event.type}`;
  const checked = checkEvent(mapped.event);
  if (isProblem(checked)) throw invalid(mapped.record, name, checked.field, checked.message);
  const bad = findBadValue(checked);
  if (bad) throw invalid(mapped.record, name, bad.path, `"${bad.path}" ${bad.reason}`);
}

let cachedSecond = Number.NaN;
let cachedPrefix = '';
/**
 * formatTimestampUs, with the "YYYY-MM-DDTHH:MM:SS." of the last second kept: a probe
 * fleet's records come many to a second.
 */
export function formatMicros(us: number): string {
  const second = Math.floor(us / 1_000_000);
  if (second !== cachedSecond) {
    const text = formatTimestampUs(second * 1_000_000);
    cachedSecond = second;
    cachedPrefix = text.slice(0, 20);
  }
  return `${cachedPrefix}${String(us - second * 1_000_000).padStart(6, '0')}Z`;
}
