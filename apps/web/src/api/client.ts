// The web app's API client: @meshbench/client on the page's own origin. Every answer is
// parsed with its schema; every failure is an ApiRequestError carrying the API's message.
import { ApiRequestError, createClient, fetchTransport } from '@meshbench/client';

export { ApiRequestError };

/** Reads go without a token; a write (or a read that shows more to its owner) brings one. */
export const meshbench = createClient(fetchTransport({ url: '' }));

// --- Browsing, comparing and sharing (issue 4) ---

export const browseApi = {
  /** A write: with the person's write token when they gave one. */
  createReport: (runs: string[], token?: string, title?: string) =>
    meshbench.reports.create(title ? { runs, title } : { runs }, { token }),
};
