// The benches' calls to the API that are not what they time (creating runs, posting their
// data, checking what was stored) through the typed client (@meshbench/client): paths from
// the route contracts, answers parsed by their schemas. Timed reads stay raw fetch, so a
// figure times the server, not the client's parse.
import { createClient, fetchTransport } from '@meshbench/client';
import { BENCH_TOKEN } from './server.ts';

export const benchClient = (api: { url: string }, token: string = BENCH_TOKEN) =>
  createClient(fetchTransport({ url: api.url, token }));
