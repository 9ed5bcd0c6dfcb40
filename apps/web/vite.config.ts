// The web app's build and dev server; in development the API runs beside it on port 3000.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import type { Plugin, Rollup } from 'vite';
import { defineConfig } from 'vitest/config';

const api = 'http://127.0.0.1:3000';

/** The packages every page needs before it can render or read anything. */
const FRAMEWORK = new Set([
  'react',
  'react-dom',
  'scheduler',
  'react-router',
  'cookie',
  'set-cookie-parser',
  '@tanstack/react-query',
  '@tanstack/query-core',
]);

/**
 * The first-load budget: what the browser fetches before a page can show anything, as the API
 * serves it (brotli, precompressed below; gzip only to clients without brotli, printed too).
 */
const FIRST_LOAD_BUDGET_KB = 300;

/**
 * Prints what a first visit downloads, brotli (and gzip): the entry with its static imports
 * and styles, then per page the page's own chunks on top; fails the build past the budget.
 */
function firstLoadSize(): Plugin {
  return {
    name: 'meshbench-first-load-size',
    apply: 'build',
    async generateBundle(_options, bundle: Rollup.OutputBundle) {
      const bytes = (name: string) => {
        const file = bundle[name];
        if (!file) return Buffer.alloc(0);
        const source = file.type === 'chunk' ? file.code : file.source;
        return typeof source === 'string' ? Buffer.from(source) : Buffer.from(source);
      };
      const sizes = new Map<string, { br: number; gz: number }>();
      // Every chunk compressed at once on libuv's threads, kept for the precompress step.
      await Promise.all(
        Object.keys(bundle)
          .filter((name) => COMPRESSIBLE.test(name))
          .map(async (name) => {
            const data = bytes(name);
            sizes.set(name, {
              br: (await compressed(data, 'br')).length,
              gz: (await compressed(data, 'gz')).length,
            });
          }),
      );
      const size = (name: string) => sizes.get(name) ?? { br: 0, gz: 0 };
      const closure = (start: string[], seen = new Set<string>()) => {
        for (const name of start) {
          const chunk = bundle[name];
          if (seen.has(name) || chunk?.type !== 'chunk') continue;
          seen.add(name);
          for (const css of chunk.viteMetadata?.importedCss ?? []) seen.add(css);
          closure(chunk.imports, seen);
        }
        return seen;
      };
      const total = (files: Set<string>) =>
        [...files].reduce((sum, f) => sum + size(f).br, 0) / 1000;
      const totalGz = (files: Set<string>) =>
        [...files].reduce((sum, f) => sum + size(f).gz, 0) / 1000;
      const entry = Object.values(bundle).find(
        (f): f is Rollup.OutputChunk => f.type === 'chunk' && f.isEntry,
      );
      if (!entry) return;
      const first = closure([entry.fileName]);
      const firstKb = total(first);
      const lines = [
        `first load, brotli: ${firstKb.toFixed(1)} kB (budget ${FIRST_LOAD_BUDGET_KB} kB; gzip ${totalGz(first).toFixed(1)} kB)`,
      ];
      let worst = firstKb;
      for (const page of entry.dynamicImports) {
        const withPage = closure([page], new Set(first));
        const kb = total(withPage);
        worst = Math.max(worst, kb);
        lines.push(
          `  with ${page.replace(/^assets\//, '').replace(/-[\w-]+\.js$/, '')}: ${kb.toFixed(1)} kB (gzip ${totalGz(withPage).toFixed(1)} kB)`,
        );
      }
      console.log(`\n${lines.join('\n')}`);
      if (worst > FIRST_LOAD_BUDGET_KB) {
        this.error(
          `a first load is ${worst.toFixed(1)} kB brotli, over the ${FIRST_LOAD_BUDGET_KB} kB budget`,
        );
      }
    },
  };
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Each distinct content compressed once per build at the highest levels, on libuv's threads:
 * the size report and the precompressed files share the result (brotli at its maximum quality
 * is most of the build's time when done twice, one file after another).
 */
const compressions = new Map<string, Promise<Buffer>>();
function compressed(data: Buffer, kind: 'br' | 'gz'): Promise<Buffer> {
  const key = `${kind}:${createHash('sha256').update(data).digest('hex')}`;
  let result = compressions.get(key);
  if (!result) {
    result =
      kind === 'br'
        ? brotliAsync(data, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
              [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
            },
          })
        : gzipAsync(data, { level: 9 });
    compressions.set(key, result);
  }
  return result;
}

/** A string literal of the schema's sources: '...', "..." or `...` without interpolation. */
const LITERAL = String.raw`(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|\`(?:[^\`\\$]|\\.)*\`)`;
/** A literal or literals joined with +, as the schema writes a long text. */
const TEXT = String.raw`${LITERAL}(?:\s*\+\s*${LITERAL})*`;
const DESCRIBE = new RegExp(String.raw`\.describe\(\s*${TEXT}\s*,?\s*\)`, 'g');
const ROUTE_TEXT = new RegExp(String.raw`\b(?:summary|description):\s*${TEXT}\s*,`, 'g');

/**
 * The schema's words for the API's readers (zod's `.describe(...)` and the routes' summaries
 * and descriptions, which the API turns into its OpenAPI document) left out of the web app's
 * build: the pages parse answers with the schemas and never read those texts, about a third
 * of the schema's bytes. Only plain literals go; a text built from values stays.
 */
function stripApiTexts(): Plugin {
  return {
    name: 'meshbench-strip-api-texts',
    apply: 'build',
    enforce: 'pre',
    transform(code, id) {
      if (!/\/packages\/schema\/src\/.*\.ts$/.test(id)) return null;
      let out = code.replace(DESCRIBE, '');
      if (/\/contracts\//.test(id)) out = out.replace(ROUTE_TEXT, '');
      return out === code ? null : { code: out, map: null };
    },
  };
}

/** Text files worth compressing; images (the favicon's PNG inside its .ico) already are. */
const COMPRESSIBLE = /\.(js|css|html|svg|json|map|txt)$/;

/**
 * Writes `x.br` and `x.gz` beside every text file of the build, once, at the highest levels
 * (a build can afford them; a server compressing per request cannot): the API serves them by
 * Accept-Encoding. Node's own zlib does both, so no plugin is needed for it.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'meshbench-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    async closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
          e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
        );
      await Promise.all(
        walk(outDir)
          .filter((file) => COMPRESSIBLE.test(file))
          .map(async (file) => {
            const data = readFileSync(file);
            const [br, gz] = await Promise.all([compressed(data, 'br'), compressed(data, 'gz')]);
            writeFileSync(`${file}.br`, br);
            writeFileSync(`${file}.gz`, gz);
          }),
      );
    },
  };
}

export default defineConfig({
  plugins: [stripApiTexts(), react(), firstLoadSize(), precompress()],
  server: {
    proxy: {
      '/api': api,
      '/docs': api,
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rollupOptions: {
      output: {
        // Libraries change less often than the app: separate files stay cached across releases.
        // By package, not by entry module: with entries, modules the charting library shares
        // with React landed in its chunk and made every page load it before the first render.
        // The charting library (recharts, d3, redux toolkit...) is left to Rollup's own split:
        // its core in one chunk, each chart kind's code with the sections that draw it, so a
        // page of line charts does not fetch the bars' and areas' (about 9 kB brotli).
        manualChunks(id) {
          const pkg = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(id)?.[1];
          if (!pkg) return undefined;
          if (FRAMEWORK.has(pkg)) return 'react';
          if (pkg === 'zod') return 'zod';
          return undefined;
        },
      },
    },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
