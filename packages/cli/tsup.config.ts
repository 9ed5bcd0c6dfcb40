import { defineConfig } from 'tsup';

// One self-contained file: the published package has no dependencies to install.
export default defineConfig({
  entry: { cli: 'src/main.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  noExternal: [/.*/],
  banner: { js: '#!/usr/bin/env node' },
});
