import type { ProbeEvent } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { BatchAssembler, type NumberedEvent } from './batch-assembler.ts';

async function assemble(events: ProbeEvent[]) {
  const batch = new BatchAssembler('run-1', 7);
  async function* source(): AsyncGenerator<NumberedEvent[]> {
    yield events.map((event, i) => ({ line: i + 1, event }));
  }
  let rows = '';
  for await (const chunk of batch.observationRows(source())) rows += chunk;
  return { batch, rows };
}

const change: ProbeEvent = {
  type: 'change',
  id: 'c1',
  kind: 'endpoint',
  target: 'hey',
  action: 'delete',
  at: '2026-02-01T10:00:00Z',
};

describe('BatchAssembler', () => {
  it('writes COPY text rows with escapes and nulls', async () => {
    const { rows } = await assemble([
      change,
      {
        type: 'observation',
        change: 'c1',
        proxy: 'a\tb',
        at: '2026-02-01T10:00:00.5Z',
        attrs: { az: 'x' },
      },
    ]);
    expect(rows).toBe('run-1\tc1\ta\\tb\t\\N\t2026-02-01T10:00:00.5Z\t\\N\t{"az":"x"}\t7\n');
  });
  it('rewrites timestamps Postgres would round (nanoseconds) to microseconds, truncated', async () => {
    const { rows } = await assemble([
      change,
      { type: 'observation', change: 'c1', proxy: 'p', at: '2026-02-01T11:00:00.0000019+01:00' },
    ]);
    expect(rows).toContain('\t2026-02-01T10:00:00.000001Z\t');
  });
  it.each([
    ['a space for the T', '2026-02-01 10:00:00Z'],
    ['no offset', '2026-02-01T10:00:00'],
    ['no such day', '2026-02-30T10:00:00Z'],
  ])('refuses an at with %s, naming line and field', async (_name, at) => {
    const error = await assemble([
      change,
      { type: 'observation', change: 'c1', proxy: 'p', at },
    ]).catch((e) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ statusCode: 400, where: { line: 2, field: 'at' } });
  });
  it('accepts a change given twice the same way, refuses it given differently', async () => {
    expect((await assemble([change, { ...change }])).batch.changes.size).toBe(1);
    const error = await assemble([change, { ...change, action: 'add' } as ProbeEvent]).catch(
      (e) => e,
    );
    expect(error).toMatchObject({ statusCode: 409, where: { line: 2, field: 'action' } });
  });
});
