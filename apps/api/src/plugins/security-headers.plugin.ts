// Headers that make every response safe to serve to a browser: no MIME sniffing, no
// framing (clickjacking), no Referer (a report's share slug is its only secret, and a
// link out of the page must not carry it), and a Content-Security-Policy: the web app and
// the API docs load only their own scripts, styles and data; other responses (JSON, CSV,
// NDJSON) may load nothing at all.
import fp from 'fastify-plugin';

/** The web app and /docs: their own files; inline styles (Recharts sets style attributes). */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Everything that is not a page. */
export const DATA_CSP = "default-src 'none'; frame-ancestors 'none'";

export default fp(
  async (app) => {
    app.addHook('onSend', async (_request, reply, payload) => {
      const type = String(reply.getHeader('content-type') ?? '');
      reply.header('content-security-policy', type.startsWith('text/html') ? PAGE_CSP : DATA_CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('cross-origin-opener-policy', 'same-origin');
      return payload;
    });
  },
  { name: 'security-headers' },
);
