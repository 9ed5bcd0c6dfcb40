// Reads that may lag (lists, reports, compare, history, exports) go to the streaming standby
// (DATABASE_READ_URL) while it keeps up; everything else, writes first, to the primary. A
// write's answer carries the primary's WAL position (header and cookie); a read that sends it
// back goes to the standby only once the standby has replayed that far (docs/deploy.md).
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../errors.ts';
import { formatLsn, parseLsn } from '../repositories/database.ts';

/**
 * The GET routes read from the standby: what DESIGN.md names as reads that may lag. Any other
 * route reads the primary, among them the reads a writer makes right after its write (the
 * CLI's gate, a batch's propagation summary, a run's page).
 */
export const STANDBY_ROUTES: readonly string[] = [
  '/api/v1/runs',
  '/api/v1/runs/facets',
  '/api/v1/runs/headlines',
  '/api/v1/reports/:slug',
  '/api/v1/compare',
  '/api/v1/compare/comparability',
  '/api/v1/history',
  '/api/v1/runs/:id/events',
  '/api/v1/runs/:id/changes/:changeId/perfetto',
];

/*
 * Every GET is a pure read (routes/read-only.int.test.ts). A write made in a standby read
 * anyway is refused by the standby and made again on the primary (db read-routing.ts),
 * counted as meshbench_standby_writes_on_read_total.
 */

/** The header a write's answer carries, and a read may send back, with the WAL position. */
export const LSN_HEADER = 'meshbench-lsn';
/** The same, as the cookie a browser sends back by itself (the web app sets no header). */
export const LSN_COOKIE = 'meshbench_lsn';
/** How long the cookie is kept: longer than any standby lag a read waits out. */
const LSN_COOKIE_MAX_AGE_S = 300;

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

function cookieLsn(request: FastifyRequest): bigint | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, value] = part.trim().split('=');
    // Ours alone sets it; a value that is not an LSN is ignored, not an error to a browser.
    if (name === LSN_COOKIE && value) return parseLsn(decodeURIComponent(value));
  }
  return undefined;
}

/** The furthest WAL position the caller says it wrote: the header and the cookie. */
export function requestedLsn(request: FastifyRequest): bigint | undefined {
  const raw = request.headers[LSN_HEADER];
  let lsn: bigint | undefined;
  if (raw !== undefined) {
    const text = Array.isArray(raw) ? raw.join(',') : raw;
    lsn = parseLsn(text.trim());
    if (lsn === undefined)
      throw new AppError(
        400,
        'bad_request',
        `header ${LSN_HEADER} must be a WAL position as a write's answer gives it (e.g. 0/16B3748), got "${text.slice(0, 40)}"`,
        { field: LSN_HEADER },
      );
  }
  const cookie = cookieLsn(request);
  if (cookie !== undefined && (lsn === undefined || cookie > lsn)) lsn = cookie;
  return lsn;
}

export default fp(
  async (app) => {
    const standby = app.database.standby;
    if (!standby) return;
    standby.onChange((up, reason) => {
      if (up) app.log.info('the read standby answers again: reads that may lag go to it');
      else app.log.warn(`the read standby is not used (${reason}): reads go to the primary`);
    });
    // Known before the first request, so the first reads are not sent to the primary for want of it.
    await standby.probe();
    if (!standby.state().up)
      app.log.warn(
        `the read standby is not used (${standby.state().reason}): reads go to the primary`,
      );

    const routes = new Set(STANDBY_ROUTES);
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (!methods.includes('GET') || !routes.has(route.url)) return;
      const handler = route.handler as RouteHandlerMethod;
      route.handler = async function routed(request: FastifyRequest, reply: FastifyReply) {
        const { target, reason } = await standby.choose(requestedLsn(request));
        request.log.debug({ readFrom: target, reason }, 'read routed');
        // The handler's queries, and any transaction it starts before returning (an export's
        // stream), take the chosen pool; a standby that fails as unavailable hands them over.
        // Awaited inside the scope: a drizzle query returned as it is runs when awaited.
        return standby.run(target, async () => await handler.call(this, request, reply));
      } as typeof route.handler;
    });

    // A write's answer says how far the primary's WAL is: at or past its commit.
    app.addHook('onSend', async (request, reply, payload) => {
      if (READS.has(request.method) || reply.statusCode >= 400) return payload;
      if (!request.url.startsWith('/api/')) return payload;
      try {
        const lsn = formatLsn(await standby.writeLsn());
        reply.header(LSN_HEADER, lsn);
        reply.header(
          'set-cookie',
          `${LSN_COOKIE}=${encodeURIComponent(lsn)}; Path=/; Max-Age=${LSN_COOKIE_MAX_AGE_S}; SameSite=Lax; HttpOnly`,
        );
      } catch (error) {
        // The write is done; without its position, the caller's reads just may lag.
        request.log.warn({ err: error }, 'reading the primary’s WAL position failed');
      }
      return payload;
    });
  },
  { name: 'read-routing', dependencies: ['database'] },
);
