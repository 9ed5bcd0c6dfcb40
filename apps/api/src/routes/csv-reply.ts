// A route's answer as CSV when asked for (?format=csv, or Accept: text/csv with no format):
// the type, a download name, and the text as it is (the CSV bypasses the JSON response
// schema, so it gets its own serializer). The tables themselves are export/csv.ts.
import type { FastifyReply } from 'fastify';

export const wantsCsv = (format: 'json' | 'csv' | undefined, accept: string | undefined) =>
  format === 'csv' || (format === undefined && accept?.startsWith('text/csv') === true);

export function sendCsv(reply: FastifyReply, filename: string, text: string) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .serializer((s: string) => s)
    .send(text as never);
}
