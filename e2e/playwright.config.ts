// Playwright against the built app: the API (serving apps/web/dist) on its own port and
// its own fresh data directory, driven by Debian's Chromium (nothing is downloaded).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

// Playwright loads this file in the runner and again in each worker; the runner chooses the
// port and the data directory once and the workers inherit them. The port follows the
// runner's pid so that two suites on one machine (a developer's and CI's) do not collide.
process.env.E2E_PORT ??= String(20_000 + (process.pid % 20_000));
process.env.E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'meshbench-e2e-'));
const PORT = Number(process.env.E2E_PORT);
/** The StatsD listener's UDP and TCP port (the ingest page's spec sends to it). */
process.env.E2E_STATSD_PORT ??= String(PORT + 1);
const dataDir = process.env.E2E_DATA_DIR;
export const BASE_URL = `http://127.0.0.1:${PORT}`;
/**
 * The server's admin token: specs post their data with it (the workers inherit it from the
 * runner as MESHBENCH_ADMIN_TOKEN), and pages start with it in the web app's storage.
 */
process.env.MESHBENCH_ADMIN_TOKEN ??= 'e2e-admin-token-0123456789';
export const E2E_TOKEN = process.env.MESHBENCH_ADMIN_TOKEN;
/** Where the web app keeps the write token a person gave it. */
export const TOKEN_STORAGE_KEY = 'meshbench.token';

export default defineConfig({
  testDir: './specs',
  outputDir: './test-results',
  retries: 0,
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: {
    baseURL: BASE_URL,
    // Pages start as a person who has given the web app a write token.
    storageState: {
      cookies: [],
      origins: [
        { origin: BASE_URL, localStorage: [{ name: TOKEN_STORAGE_KEY, value: E2E_TOKEN }] },
      ],
    },
    viewport: { width: 1280, height: 900 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: {
    command: 'node ../apps/api/dist/server.js',
    url: `${BASE_URL}/api/v1/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(PORT),
      HOST: '127.0.0.1',
      STATSD_PORT: process.env.E2E_STATSD_PORT,
      // No demo loading in the background: specs post their own runs, and the ingest
      // page's spec counts what it sends itself.
      MESHBENCH_DEMO: '0',
      MESHBENCH_DATA_DIR: dataDir,
      MESHBENCH_ADMIN_TOKEN: E2E_TOKEN,
      // Unset: the embedded database. Set: that Postgres, which may already hold runs.
      ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    },
  },
});
