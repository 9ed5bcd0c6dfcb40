// The API's reads as a spec makes them: the typed client (@meshbench/client), which builds
// each path from the route's contract and parses the answer with its schema.
import { createClient, fetchTransport } from '@meshbench/client';

export const apiReads = (baseURL: string | undefined, token?: string) =>
  createClient(fetchTransport({ url: baseURL as string, token }));
