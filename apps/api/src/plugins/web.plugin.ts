// Serves the built single-page app: its assets, and index.html for every client route.
// A shared report's page (/r/{slug}) gets Open Graph tags written in by the server, since
// link previews do not run the app; its og:url comes from MESHBENCH_PUBLIC_URL, never from
// the request's Host header (which a client chooses), and is left out when it is not set.
// Assets go out as the build precompressed them (brotli, else gzip, by Accept-Encoding);
// hashed files are cached for good, everything else is revalidated on each use.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import fp from 'fastify-plugin';
import { AppError } from '../errors.ts';

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]};`,
  );

export function withOpenGraph(
  html: string,
  tags: { title: string; description: string; url: string | undefined },
): string {
  const meta = [
    `<meta property="og:type" content="article" />`,
    `<meta property="og:site_name" content="meshbench" />`,
    `<meta property="og:title" content="${escapeHtml(tags.title)}" />`,
    `<meta property="og:description" content="${escapeHtml(tags.description)}" />`,
    ...(tags.url ? [`<meta property="og:url" content="${escapeHtml(tags.url)}" />`] : []),
    `<meta name="twitter:card" content="summary" />`,
    `<meta name="description" content="${escapeHtml(tags.description)}" />`,
  ].join('\n    ');
  return html
    .replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(tags.title)} · meshbench</title>`)
    .replace('</head>', `    ${meta}\n  </head>`);
}

/** Vite names what it hashes `assets/<name>-<hash>.<ext>`: their content never changes. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Everything else (index.html, the favicon) may change with a release: revalidate it. */
export const REVALIDATE = 'no-cache';

export function cacheControlFor(root: string, path: string): string {
  const file = relative(root, path).split(sep).join('/');
  return /^assets\/[^/]+-[\w-]{8,}\.\w+(\.(br|gz))?$/.test(file) ? IMMUTABLE : REVALIDATE;
}

export default fp<{ root: string | undefined; publicUrl?: string | undefined }>(
  async (app, opts) => {
    const root = opts.root;
    if (!root || !existsSync(join(root, 'index.html'))) {
      app.log.warn('the web app is not built (pnpm build); serving the API only');
      return;
    }
    const indexHtml = readFileSync(join(root, 'index.html'), 'utf8');
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      index: ['index.html'],
      preCompressed: true,
      cacheControl: false,
      setHeaders: (reply, path) => reply.header('cache-control', cacheControlFor(root, path)),
    });

    app.get('/r/:slug', { schema: { hide: true } }, async (request, reply) => {
      const { slug } = request.params as { slug: string };
      let html = indexHtml;
      try {
        const report = await app.services.reports.get(slug);
        const url = opts.publicUrl ? `${opts.publicUrl}/r/${encodeURIComponent(slug)}` : undefined;
        html = withOpenGraph(indexHtml, {
          title: report.title,
          description: report.description,
          url,
        });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        reply.code(404); // the app shows "no such report"; the status says so to crawlers
      }
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
    });

    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      const isApi = path.startsWith('/api/') || path.startsWith('/v1/') || path.startsWith('/docs');
      if (request.method === 'GET' && !isApi && !path.includes('.')) {
        return reply
          .type('text/html; charset=utf-8')
          .header('cache-control', REVALIDATE)
          .send(indexHtml);
      }
      return reply.code(404).send({
        statusCode: 404,
        code: 'not_found',
        message: `no route for ${request.method} ${path}`,
      });
    });
  },
  { name: 'web', dependencies: ['services'] },
);
