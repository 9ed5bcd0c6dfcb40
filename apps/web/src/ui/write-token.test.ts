import { FORMAT_HINT } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { ApiRequestError } from '../api/client.ts';
import { userError } from './write-token.ts';

describe('userError', () => {
  it("says how to name an unknown file's format in the form's terms, with the formats read", () => {
    const error = new ApiRequestError(
      415,
      'undetectable',
      `cannot tell the format of the file; the formats read are fortio (Fortio JSON), hey (a hey -o csv file); ${FORMAT_HINT}`,
    );
    expect(userError(error, 'upload the file')).toBe(
      'Could not upload the file: cannot tell the format of the file; the formats read are fortio (Fortio JSON), hey (a hey -o csv file); pick it in the Format list.',
    );
  });
});
