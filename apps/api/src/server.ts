// The process: config, app, listen, demo data on first start, graceful shutdown.
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config/env.ts';
import { demoRunCount, loadDemo } from './demo/index.ts';

/** The built web app beside this file's package: apps/web/dist. */
function webRoot(): string | undefined {
  for (const rel of ['../../web/dist', '../../../web/dist']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${dir}/index.html`)) return dir;
  }
  return undefined;
}

async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`meshbench: configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const app = await buildApp(config, { webRoot: webRoot() });
  // Shutdown. On SIGTERM (an orchestrator's or a balancer's stop) the replica first drains:
  // for MESHBENCH_DRAIN_MS it serves as before while /health/ready answers 503, so the
  // balancer stops sending it requests. Then it closes: no new connections; bodies still
  // arriving are cut (503, their batches roll back); requests already received finish; the
  // StatsD listener flushes what it holds; the database pool closes last (onClose hooks run
  // after the HTTP server has closed, in reverse order of registration). Whatever is left at
  // MESHBENCH_SHUTDOWN_TIMEOUT_MS from the signal is dropped (Postgres rolls back a dropped
  // connection's transaction; the embedded database keeps only what was committed) and the
  // process exits. SIGINT (a person's Ctrl-C) does not drain. A second signal ends it at once.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      const drainMs = signal === 'SIGTERM' ? Math.min(config.drainMs, config.shutdownTimeoutMs) : 0;
      app.log.info(
        `${signal}: ${drainMs > 0 ? `draining for ${drainMs} ms, then ` : ''}closing (at most ${config.shutdownTimeoutMs} ms)`,
      );
      const deadline = setTimeout(() => {
        app.log.warn(
          `${signal}: requests still in progress after ${config.shutdownTimeoutMs} ms (MESHBENCH_SHUTDOWN_TIMEOUT_MS); exiting`,
        );
        app.server.closeAllConnections();
        process.exit(1);
      }, config.shutdownTimeoutMs);
      app.lifecycle.draining = true;
      setTimeout(() => {
        app.close().then(
          () => {
            clearTimeout(deadline);
            process.exit(0);
          },
          () => process.exit(1),
        );
      }, drainMs);
    });
  }
  // The demo loads on the first start of an empty database, unless MESHBENCH_DEMO=0.
  const wantDemo = config.demo !== false && (await app.services.isEmpty());
  await app.listen({ port: config.port, host: config.host });
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  app.log.info(
    `meshbench on ${base} (database: ${app.database.kind === 'embedded' ? `embedded in ${config.dataDir}` : 'postgres'}); API docs at ${base}/docs`,
  );
  // First start of the embedded database: a write token for the default project, so a
  // person trying meshbench can post at once. Kept in the data directory, shown once here.
  if (app.database.kind === 'embedded') {
    const local = await app.services.projects.localToken();
    const file = join(config.dataDir, 'token');
    if (local) {
      writeFileSync(file, `${local.token}\n`, { mode: 0o600 });
      chmodSync(file, 0o600); // an older file keeps its mode through writeFileSync
      console.log(
        `\nmeshbench: a write token for the default project (also in ${file}):\n\n  export MESHBENCH_URL=${base}\n  export MESHBENCH_TOKEN=${local.token}\n\n` +
          `Paste it into the web app when it asks (uploads, sharing), or give it to the CLI and curl as "Authorization: Bearer <token>".\n`,
      );
    } else if (existsSync(file)) {
      app.log.info(`the local write token is in ${file}`);
    }
  }
  if (wantDemo) {
    const started = Date.now();
    // A scale-up arriving for four minutes: its page and `meshbench watch` move.
    const liveMs = 240_000;
    app.lifecycle.demo = { state: 'loading', loaded: 0, total: demoRunCount({ liveMs }) };
    // The demo posts like any runner: with a token, the admin's or one made for it.
    const internal = config.adminToken
      ? undefined
      : await app.services.projects.serverToken('demo');
    loadDemo({
      baseUrl: base,
      token: config.adminToken ?? internal?.token,
      statsdPort: app.statsd.udpPort ?? 0,
      log: (m) => app.log.info(m),
      liveMs,
      // The runs list says how far it has got ("loading the demo: 12 of 60 runs").
      onProgress: (loaded, total) => {
        app.lifecycle.demo = { state: 'loading', loaded, total };
      },
    })
      .finally(() => internal && app.services.projects.revokeServerToken(internal.id))
      .then(
        (runs) => {
          app.lifecycle.demo = { state: 'loaded', loaded: runs.length, total: runs.length };
          app.log.info(`demo data loaded: ${runs.length} run(s) in ${Date.now() - started} ms`);
        },
        (error) => {
          app.lifecycle.demo = { ...app.lifecycle.demo, state: 'failed' };
          app.log.error({ err: error }, 'demo data failed to load');
        },
      );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
