import { describe, expect, it } from 'vitest';
import { checkEvent, isProblem } from './probe-events.ts';

const obs = { type: 'observation', change: 'c1', proxy: 'p1', at: '2026-02-01T10:00:00.5Z' };

describe('checkEvent', () => {
  it('accepts each event type', () => {
    for (const e of [
      {
        type: 'change',
        id: 'c1',
        kind: 'endpoint',
        target: 'hey',
        action: 'delete',
        at: '2026-02-01T10:00:00Z',
        expected: 3,
      },
      obs,
      { type: 'incident', kind: 'reconnect', node: 'n1', from: '2026-02-01T10:00:00Z' },
      { type: 'lifecycle', phase: 'running', entity: 'alloc-9', at: '2026-02-01T10:00:00Z' },
      { type: 'clock', node: 'n1', at: '2026-02-01T10:00:00Z', offsetMs: -3.2, errorMs: 0.8 },
      {
        type: 'clock',
        node: 'n1',
        t1: '2026-02-01T10:00:00.000Z',
        t2: '2026-02-01T10:00:00.004Z',
        t3: '2026-02-01T10:00:00.005Z',
        t4: '2026-02-01T10:00:00.002Z',
      },
    ]) {
      expect(isProblem(checkEvent(e)), JSON.stringify(e)).toBe(false);
    }
  });
  it('names an unknown type', () => {
    const p = checkEvent({ ...obs, type: 'observaton' });
    expect(p).toEqual({
      field: 'type',
      message: expect.stringContaining('unknown event type "observaton"'),
    });
  });
  it('names a missing field', () => {
    const { proxy, ...rest } = obs;
    expect(checkEvent(rest)).toEqual({
      field: 'proxy',
      message: expect.stringContaining('missing required field "proxy" in an observation event'),
    });
  });
  it('names a field of the wrong type', () => {
    expect(checkEvent({ ...obs, proxy: 42 })).toMatchObject({ field: 'proxy' });
  });
  it('names an extra field', () => {
    expect(checkEvent({ ...obs, latency: 3 })).toEqual({
      field: 'latency',
      message: expect.stringContaining('unknown field "latency"'),
    });
  });
  it('names an at that is not a string; the assembler parses the string itself', () => {
    expect(checkEvent({ ...obs, at: 1706781600 })).toMatchObject({ field: 'at' });
    expect(isProblem(checkEvent({ ...obs, at: '2026-02-01 10:00:00' }))).toBe(false);
  });
  it('names the field of a clock event the schema refuses', () => {
    const clock = { type: 'clock', node: 'n1', at: '2026-02-01T10:00:00Z', offsetMs: 1 };
    expect(checkEvent({ ...clock, errorMs: -0.5 })).toMatchObject({ field: 'errorMs' });
    expect(checkEvent({ ...clock, offsetMs: '1' })).toMatchObject({ field: 'offsetMs' });
    expect(checkEvent({ ...clock, node: '' })).toMatchObject({ field: 'node' });
    expect(checkEvent({ ...clock, skew: 1 })).toMatchObject({ field: 'skew' });
  });
  it('rejects non-objects', () => {
    expect(isProblem(checkEvent([obs]))).toBe(true);
    expect(isProblem(checkEvent('x'))).toBe(true);
  });
});
