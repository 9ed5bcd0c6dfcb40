// Load results as the API returns them: the normalized point plus where it came from.
import { z } from 'zod';
import { loadResult, resultFormat } from './load-results.ts';

export const storedLoadResult = loadResult.extend({
  id: z.number().int(),
  format: resultFormat.describe('the file format the point was imported from'),
});
export type StoredLoadResult = z.infer<typeof storedLoadResult>;
