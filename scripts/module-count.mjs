// Counts the modules that importing one file loads (its own and every module it pulls in,
// node_modules included, node: built-ins left out), so "a pure decoder loads no database
// driver" can be measured. Usage (from the package whose dependencies the file uses):
//   node --import tsx ../../scripts/module-count.mjs src/ingest/results/fortio.decoder.ts
import { register } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';

const entry = process.argv[2];
if (!entry) {
  console.error('usage: node --import tsx scripts/module-count.mjs <file>');
  process.exit(2);
}
const { port1, port2 } = new MessageChannel();
const loaded = new Set();
port1.on('message', (url) => loaded.add(url));
port1.unref();
const hooks = `
let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) {
  if (!url.startsWith('node:')) port.postMessage(url);
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url, {
  data: { port: port2 },
  transferList: [port2],
});
await import(pathToFileURL(resolve(entry)).href);
await new Promise((done) => setTimeout(done, 200));
const all = [...loaded];
const packages = new Set(
  all
    .filter((u) => u.includes('/node_modules/'))
    .map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u.split('/.pnpm/').pop())?.[1])
    .filter(Boolean),
);
console.log(
  `${entry}: ${all.length} modules (${all.length - all.filter((u) => u.includes('/node_modules/')).length} of the repo's own; packages: ${[...packages].sort().join(', ') || 'none'})`,
);
if (process.argv.includes('--list')) for (const u of all) console.log(`  ${u}`);
