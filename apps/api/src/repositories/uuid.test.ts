import { randomUUID } from 'node:crypto';
import { isUuid, uuidLiteral } from '@meshbench/db';
import { describe, expect, it } from 'vitest';
import { inRunBatchesText } from './observation-scope.ts';

// The one UUID check that guards every id interpolated into SQL text and every
// id-or-name look-up (db/src/uuid.ts).
describe('isUuid', () => {
  it('takes the canonical text of any version, in either case', () => {
    for (const id of [
      randomUUID(),
      randomUUID().toUpperCase(),
      '00000000-0000-0000-0000-000000000000', // nil
      'ffffffff-ffff-ffff-ffff-ffffffffffff', // max
      'c232ab00-9414-11ec-b3c8-9f6bdeced846', // version 1
      '017f22e2-79b0-7cc3-98c4-dc0c0c07398f', // version 7
      '00000000-0000-0000-0000-000000000001', // the default project's id
    ]) {
      expect(isUuid(id), id).toBe(true);
    }
  });

  it('refuses everything else', () => {
    const id = randomUUID();
    for (const bad of [
      '',
      'consul-1-9-5',
      id.replace(/-/g, ''), // no dashes
      `{${id}}`, // braces
      `urn:uuid:${id}`,
      ` ${id}`,
      `${id} `,
      `${id}\n`,
      `${id}0`, // a digit too many
      id.slice(1), // a digit too few
      `${id.slice(0, 9)}-${id.slice(9)}`, // a dash too many
      `g${id.slice(1)}`, // not hex
      `${id}'; drop table runs; --`,
      '0000000-00000-0000-0000-000000000000', // groups of the wrong lengths
    ]) {
      expect(isUuid(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('the SQL text built from a run id', () => {
  it('quotes a UUID and refuses anything else', () => {
    const id = randomUUID();
    expect(uuidLiteral(id)).toBe(`'${id}'::uuid`);
    expect(() => uuidLiteral(`${id}'--`)).toThrow(/not a uuid/);
    expect(inRunBatchesText(id)).toContain(`run_id = '${id}'::uuid`);
    expect(() => inRunBatchesText(`x' or true --`)).toThrow(/not a run id/);
  });
});
