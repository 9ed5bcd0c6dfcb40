// Where the committed migrations are: beside a bundle that copied them (dist/migrations),
// or db/migrations when running from source.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const candidates = [
  fileURLToPath(new URL('./migrations', import.meta.url)),
  fileURLToPath(new URL('../migrations', import.meta.url)),
];

export const migrationsFolder =
  candidates.find((dir) => existsSync(`${dir}/meta/_journal.json`)) ?? (candidates[1] as string);
