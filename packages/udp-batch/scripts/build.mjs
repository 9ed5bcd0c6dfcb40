// Builds the addon with node-gyp into dist/udp_batch.node. Node's own headers are used
// where they are installed beside it (npm's `nodedir` setting, or <prefix>/include/node),
// so nothing is downloaded. Without a C compiler the build is skipped with a warning and
// the StatsD listener uses Node's dgram socket instead; MESHBENCH_NATIVE=require (CI)
// makes that an error.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const native = join(root, 'native');
const require = createRequire(import.meta.url);

function nodeDir() {
  const configured = process.env.npm_config_nodedir;
  if (configured && existsSync(join(configured, 'include', 'node', 'node_api.h')))
    return configured;
  const prefix = resolve(dirname(process.execPath), '..');
  if (existsSync(join(prefix, 'include', 'node', 'node_api.h'))) return prefix;
  return undefined;
}

// A failed build must not leave an older addon behind to be loaded.
rmSync(join(root, 'dist', 'udp_batch.node'), { force: true });
const dir = nodeDir();
const gyp = require.resolve('node-gyp/bin/node-gyp.js');
const args = [
  gyp,
  'rebuild',
  '--loglevel=warn',
  '--directory',
  native,
  ...(dir ? ['--nodedir', dir] : []),
];
const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
const built = join(native, 'build', 'Release', 'udp_batch.node');
if (result.status === 0 && existsSync(built)) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  copyFileSync(built, join(root, 'dist', 'udp_batch.node'));
  console.log('udp-batch: built dist/udp_batch.node');
} else {
  const message =
    "udp-batch: the addon did not build (a C compiler, make and python3 are needed); the StatsD listener will use Node's dgram socket, which loses datagrams sooner under load";
  if (process.env.MESHBENCH_NATIVE === 'require') {
    console.error(message);
    process.exit(1);
  }
  console.warn(message);
}
