import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { server: 'src/server.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  // Workspace packages are source: bundle them. Everything from npm stays external.
  noExternal: [/^@meshbench\//],
  async onSuccess() {
    cpSync('../../db/migrations', 'dist/migrations', { recursive: true });
  },
});
