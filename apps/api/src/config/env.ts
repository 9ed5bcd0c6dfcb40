// The process environment, parsed once at boot into one typed config. A bad or unknown
// MESHBENCH_* variable stops the boot with a message naming it.
import { resolve } from 'node:path';
import { z } from 'zod';

const port = (name: string, fallback: number) =>
  z
    .string()
    .default(String(fallback))
    .transform((v, ctx) => {
      const n = Number(v);
      if (!/^\d+$/.test(v) || n > 65535) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a port number 0-65535, got "${v}"`,
        });
        return z.NEVER;
      }
      return n;
    });

const flag = (name: string) =>
  z
    .enum(['0', '1'], { error: () => `${name} must be 0 or 1` })
    .optional()
    .transform((v) => (v === undefined ? undefined : v === '1'));

/** Connections of a replica's Postgres pool (passed to the database as its pool size). */
export const POOL_SIZE = 10;
/**
 * Of them, how many writes may hold at once unless told (MESHBENCH_UPLOAD_CONNECTIONS): the
 * batch and result-file slots (4 + 4) could otherwise take every one and starve reads.
 */
export const DEFAULT_UPLOAD_CONNECTIONS = 6;

/** A duration in ms between `min` and `max`, named in its error. */
const ms = (name: string, fallback: number, min: number, max: number) =>
  z
    .string()
    .default(String(fallback))
    .refine(
      (v) => /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max,
      `${name} must be a whole number of milliseconds, ${min}-${max}`,
    )
    .transform(Number);

/** Every variable the server reads; config-docs.test.ts holds .env.example and the README to it. */
export const envSchema = z.object({
  PORT: port('PORT', 3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_READ_URL: z
    .string()
    .regex(
      /^postgres(ql)?:\/\//,
      'DATABASE_READ_URL must be a postgres:// or postgresql:// URL (a streaming standby of DATABASE_URL)',
    )
    .optional(),
  MESHBENCH_READ_MAX_LAG_MS: ms('MESHBENCH_READ_MAX_LAG_MS', 2000, 100, 600_000),
  MESHBENCH_DATA_DIR: z.string().min(1).default('./.meshbench'),
  MESHBENCH_PUBLIC_URL: z
    .string()
    .regex(
      /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/,
      'MESHBENCH_PUBLIC_URL must be an http:// or https:// URL without a query, e.g. https://meshbench.example.com',
    )
    .optional(),
  STATSD_PORT: port('STATSD_PORT', 8125),
  STATSD_HOST: z.string().min(1).default('127.0.0.1'),
  // Empty is unset (docker-compose passes STATSD_PROJECT through as '' when .env has none).
  STATSD_PROJECT: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  MESHBENCH_UNMATCHED_RETENTION_MS: z
    .string()
    .regex(
      /^\d+$/,
      'MESHBENCH_UNMATCHED_RETENTION_MS must be a whole number of milliseconds (0 = keep none)',
    )
    .default(String(6 * 3600 * 1000))
    .transform(Number),
  MESHBENCH_UNMATCHED_MAX_POINTS: z
    .string()
    .regex(/^\d+$/, 'MESHBENCH_UNMATCHED_MAX_POINTS must be a whole number')
    .default('2000000')
    .transform(Number),
  MESHBENCH_ADMIN_TOKEN: z
    .string()
    .min(16, 'MESHBENCH_ADMIN_TOKEN must be at least 16 characters')
    .optional(),
  MESHBENCH_DEMO: flag('MESHBENCH_DEMO'),
  MESHBENCH_MAX_BATCH_BYTES: z
    .string()
    .regex(/^\d+$/, 'MESHBENCH_MAX_BATCH_BYTES must be a whole number of bytes')
    .default(String(256 * 1024 * 1024))
    .transform(Number),
  MESHBENCH_MAX_RESULT_BYTES: z
    .string()
    .regex(/^\d+$/, 'MESHBENCH_MAX_RESULT_BYTES must be a whole number of bytes')
    // Real result files are kilobytes (a Nighthawk run with its histograms: 250 KB).
    .default(String(8 * 1024 * 1024))
    .transform(Number),
  MESHBENCH_MAX_STREAM_RESULT_BYTES: z
    .string()
    .regex(/^\d+$/, 'MESHBENCH_MAX_STREAM_RESULT_BYTES must be a whole number of bytes')
    // k6's --out json of a long run is gigabytes; it is read as it arrives, never held.
    .default(String(4 * 1024 * 1024 * 1024))
    .transform(Number),
  MESHBENCH_STATSD_FLUSH_MS: z
    .string()
    .regex(/^\d+$/, 'MESHBENCH_STATSD_FLUSH_MS must be a whole number of milliseconds')
    .default('1000')
    .transform(Number)
    .refine((n) => n >= 10 && n <= 3_600_000, 'MESHBENCH_STATSD_FLUSH_MS must be 10-3600000'),
  MESHBENCH_STATSD_BACKLOG_MAX_POINTS: z
    .string()
    .default('1000000')
    .refine(
      (v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 100_000_000,
      'MESHBENCH_STATSD_BACKLOG_MAX_POINTS must be a whole number 1-100000000',
    )
    .transform(Number),
  MESHBENCH_STATSD_UDP: z
    .enum(['batch', 'dgram'], {
      message: 'MESHBENCH_STATSD_UDP must be batch (recvmmsg, where the addon is built) or dgram',
    })
    .default('batch'),
  MESHBENCH_OTLP_MAX_BYTES: z
    .string()
    .regex(/^\d+$/, 'MESHBENCH_OTLP_MAX_BYTES must be a whole number of bytes')
    .default(String(32 * 1024 * 1024))
    .transform(Number),
  MESHBENCH_READ_CACHE_MS: z
    .string()
    .regex(/^\d+$/, 'MESHBENCH_READ_CACHE_MS must be a whole number of milliseconds (0 = off)')
    .default('1000')
    .transform(Number)
    .refine((n) => n <= 60_000, 'MESHBENCH_READ_CACHE_MS must be at most 60000'),
  MESHBENCH_LIVE_POLL_MS: z
    .string()
    .regex(/^\d+$/, 'MESHBENCH_LIVE_POLL_MS must be a whole number of milliseconds')
    .default('250')
    .transform(Number)
    .refine((n) => n >= 50 && n <= 10_000, 'MESHBENCH_LIVE_POLL_MS must be between 50 and 10000'),
  MESHBENCH_ALERTS_RECHECK_MS: z
    .string()
    .regex(/^\d+$/, 'MESHBENCH_ALERTS_RECHECK_MS must be a whole number of milliseconds (0 = off)')
    .default('10000')
    .transform(Number)
    .refine((n) => n <= 3_600_000, 'MESHBENCH_ALERTS_RECHECK_MS must be at most 3600000'),
  MESHBENCH_RETENTION_MS: z
    .string()
    .regex(/^\d+$/, 'MESHBENCH_RETENTION_MS must be a whole number of milliseconds (0 = off)')
    .default('3600000')
    .transform(Number)
    .refine((n) => n <= 86_400_000, 'MESHBENCH_RETENTION_MS must be at most 86400000'),
  MESHBENCH_BODY_TIMEOUT_MS: ms('MESHBENCH_BODY_TIMEOUT_MS', 30_000, 100, 3_600_000),
  MESHBENCH_REQUEST_TIMEOUT_MS: ms('MESHBENCH_REQUEST_TIMEOUT_MS', 600_000, 1000, 86_400_000),
  MESHBENCH_SHUTDOWN_TIMEOUT_MS: ms('MESHBENCH_SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
  MESHBENCH_DRAIN_MS: ms('MESHBENCH_DRAIN_MS', 3_000, 0, 600_000),
  MESHBENCH_MAX_CONCURRENT_BATCHES: z
    .string()
    .default('4')
    .refine(
      (v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 1000,
      'MESHBENCH_MAX_CONCURRENT_BATCHES must be a whole number 1-1000',
    )
    .transform(Number),
  MESHBENCH_MAX_CONCURRENT_OTLP: z
    .string()
    .default('16')
    .refine(
      (v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 1000,
      'MESHBENCH_MAX_CONCURRENT_OTLP must be a whole number 1-1000',
    )
    .transform(Number),
  MESHBENCH_OTLP_BODY_DEADLINE_MS: ms('MESHBENCH_OTLP_BODY_DEADLINE_MS', 30_000, 100, 3_600_000),
  MESHBENCH_MAX_CONCURRENT_BATCHES_PER_PROJECT: z
    .string()
    .default('2')
    .refine(
      (v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 1000,
      'MESHBENCH_MAX_CONCURRENT_BATCHES_PER_PROJECT must be a whole number 1-1000',
    )
    .transform(Number),
  MESHBENCH_MAX_CONCURRENT_RESULT_UPLOADS: z
    .string()
    .default('4')
    .refine(
      (v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 1000,
      'MESHBENCH_MAX_CONCURRENT_RESULT_UPLOADS must be a whole number 1-1000',
    )
    .transform(Number),
  MESHBENCH_MAX_CONCURRENT_RESULT_UPLOADS_PER_PROJECT: z
    .string()
    .default('2')
    .refine(
      (v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 1000,
      'MESHBENCH_MAX_CONCURRENT_RESULT_UPLOADS_PER_PROJECT must be a whole number 1-1000',
    )
    .transform(Number),
  MESHBENCH_UPLOAD_CONNECTIONS: z
    .string()
    .default(String(DEFAULT_UPLOAD_CONNECTIONS))
    .refine(
      (v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) < POOL_SIZE,
      `MESHBENCH_UPLOAD_CONNECTIONS must be a whole number 1-${POOL_SIZE - 1} (below the pool's ${POOL_SIZE} connections)`,
    )
    .transform(Number),
  MESHBENCH_BODY_MIN_RATE: z
    .string()
    .regex(/^\d+$/, 'MESHBENCH_BODY_MIN_RATE must be a whole number of bytes per second (0 = off)')
    .default('1024')
    .transform(Number),
  MESHBENCH_BODY_RATE_WINDOW_MS: ms('MESHBENCH_BODY_RATE_WINDOW_MS', 10_000, 100, 3_600_000),
  MESHBENCH_MAX_HELD_BYTES: z
    .string()
    .regex(/^\d+$/, 'MESHBENCH_MAX_HELD_BYTES must be a whole number of bytes')
    .default(String(1024 * 1024 * 1024))
    .transform(Number)
    .refine((n) => n >= 1024 * 1024, 'MESHBENCH_MAX_HELD_BYTES must be at least 1048576'),
  MESHBENCH_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info'),
  CHROMIUM_PATH: z.string().optional(),
});

/**
 * The `meshbench` command's own variables: the README has users export them in the shell
 * they start the server from, so the server accepts them and uses neither.
 */
export const CLI_VARIABLES = ['MESHBENCH_URL', 'MESHBENCH_TOKEN'];

const KNOWN = new Set([...Object.keys(envSchema.shape), ...CLI_VARIABLES]);

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /** A streaming standby of databaseUrl for reads that may lag (docs/deploy.md). */
  databaseReadUrl: string | undefined;
  /** A standby that has not replayed what the primary had flushed this long ago serves no read. */
  readMaxLagMs: number;
  dataDir: string;
  /** Where users reach the app (links in shared pages); never taken from a request's Host. */
  publicUrl: string | undefined;
  statsdPort: number;
  /** StatsD's address: loopback unless a deployment opens it on purpose (no authentication). */
  statsdHost: string;
  /** The project (id or name) StatsD may write to; undefined: any project's runs. */
  statsdProject: string | undefined;
  /** How long points that matched no run are kept for a run created later; 0: none kept. */
  unmatchedRetentionMs: number;
  /** The most such points kept (the oldest go first). */
  unmatchedMaxPoints: number;
  /**
   * How often finished runs whose data changed after their change points were looked for
   * are looked at again; 0: never.
   */
  alertsRecheckMs: number;
  /** How often the raw rows of runs past their project's retention are dropped; 0: never. */
  retentionMs: number;
  /** StatsD aggregation interval: one row per series per interval per replica. */
  statsdFlushMs: number;
  /** batch: the udp-batch addon (recvmmsg) where it is built, else dgram; dgram: node:dgram. */
  statsdUdp: 'batch' | 'dgram';
  /** StatsD points kept while the database cannot take them (MESHBENCH_STATSD_BACKLOG_MAX_POINTS). */
  statsdBacklogMaxPoints: number;
  /** Largest OTLP request, decompressed; larger ones get 413. */
  otlpMaxBytes: number;
  adminToken: string | undefined;
  /** undefined: load the demo when the database is empty. */
  demo: boolean | undefined;
  maxBatchBytes: number;
  maxResultBytes: number;
  /** Largest k6 --out json stream (decompressed), read line by line as it arrives. */
  maxStreamResultBytes: number;
  /** How long a read's answer is served again from this replica's memory; 0: never. */
  readCacheMs: number;
  /** How often a watched run's data version is read (GET /runs/{id}/live). */
  livePollMs: number;
  /** Longest wait for the next bytes of a request body before it ends in a 408. */
  bodyTimeoutMs: number;
  /** Longest time a whole request (headers and body) may take to arrive. */
  requestTimeoutMs: number;
  /** Longest a shutdown waits for requests in progress before the process exits anyway. */
  shutdownTimeoutMs: number;
  /**
   * On SIGTERM, how long the replica keeps serving with its readiness failing (so a balancer
   * takes it out) before it closes; counted within shutdownTimeoutMs.
   */
  drainMs: number;
  /** Event batches a replica works on at once; more get 503 + Retry-After. */
  maxConcurrentBatches: number;
  /** OTLP requests a replica decodes and stores at once; more get 503 + Retry-After. */
  maxConcurrentOtlp: number;
  /** Longest an OTLP request's whole body may take to arrive (408 past it). */
  otlpBodyDeadlineMs: number;
  /** Event batches one project may have in progress at once (at most maxConcurrentBatches). */
  maxConcurrentBatchesPerProject: number;
  /** Result files stored at once, and one project's share of them while others send too. */
  maxConcurrentResultUploads: number;
  maxConcurrentResultUploadsPerProject: number;
  /**
   * Postgres: pool connections that writes (uploads, and every request that is not a read)
   * hold at once; more wait their turn, then get 503 + Retry-After. The rest stay for reads.
   */
  uploadConnections: number;
  /** Bytes a second every request body must bring, on average over each rate window; 0: off. */
  bodyMinRate: number;
  /** The window over which bodyMinRate is checked. */
  bodyRateWindowMs: number;
  /** Bytes of request bodies all requests in progress may hold in memory at once (503 past it). */
  maxHeldBytes: number;
  logLevel: string;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const unknown = Object.keys(env).filter((k) => k.startsWith('MESHBENCH_') && !KNOWN.has(k));
  if (unknown.length > 0) {
    throw new ConfigError(
      `unknown environment variable ${unknown.join(', ')}; known: ${[...KNOWN].filter((k) => k.startsWith('MESHBENCH_') && !CLI_VARIABLES.includes(k)).join(', ')} (and the CLI's ${CLI_VARIABLES.join(', ')})`,
    );
  }
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    const message = issue?.message ?? 'invalid';
    throw new ConfigError(message.includes(name) ? message : `${name}: ${message}`);
  }
  const e = parsed.data;
  if (e.DATABASE_READ_URL && !e.DATABASE_URL)
    throw new ConfigError(
      'DATABASE_READ_URL is a standby of DATABASE_URL, which is unset (the embedded database has no standby)',
    );
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databaseReadUrl: e.DATABASE_READ_URL,
    readMaxLagMs: e.MESHBENCH_READ_MAX_LAG_MS,
    dataDir: resolve(e.MESHBENCH_DATA_DIR),
    publicUrl: e.MESHBENCH_PUBLIC_URL?.replace(/\/+$/, ''),
    statsdPort: e.STATSD_PORT,
    statsdHost: e.STATSD_HOST,
    statsdProject: e.STATSD_PROJECT,
    unmatchedRetentionMs: e.MESHBENCH_UNMATCHED_RETENTION_MS,
    unmatchedMaxPoints: e.MESHBENCH_UNMATCHED_MAX_POINTS,
    alertsRecheckMs: e.MESHBENCH_ALERTS_RECHECK_MS,
    retentionMs: e.MESHBENCH_RETENTION_MS,
    statsdFlushMs: e.MESHBENCH_STATSD_FLUSH_MS,
    statsdUdp: e.MESHBENCH_STATSD_UDP,
    statsdBacklogMaxPoints: e.MESHBENCH_STATSD_BACKLOG_MAX_POINTS,
    otlpMaxBytes: e.MESHBENCH_OTLP_MAX_BYTES,
    adminToken: e.MESHBENCH_ADMIN_TOKEN,
    demo: e.MESHBENCH_DEMO,
    maxBatchBytes: e.MESHBENCH_MAX_BATCH_BYTES,
    maxResultBytes: e.MESHBENCH_MAX_RESULT_BYTES,
    maxStreamResultBytes: e.MESHBENCH_MAX_STREAM_RESULT_BYTES,
    readCacheMs: e.MESHBENCH_READ_CACHE_MS,
    livePollMs: e.MESHBENCH_LIVE_POLL_MS,
    bodyTimeoutMs: e.MESHBENCH_BODY_TIMEOUT_MS,
    requestTimeoutMs: e.MESHBENCH_REQUEST_TIMEOUT_MS,
    shutdownTimeoutMs: e.MESHBENCH_SHUTDOWN_TIMEOUT_MS,
    drainMs: e.MESHBENCH_DRAIN_MS,
    maxConcurrentBatches: e.MESHBENCH_MAX_CONCURRENT_BATCHES,
    maxConcurrentOtlp: e.MESHBENCH_MAX_CONCURRENT_OTLP,
    otlpBodyDeadlineMs: e.MESHBENCH_OTLP_BODY_DEADLINE_MS,
    maxConcurrentBatchesPerProject: e.MESHBENCH_MAX_CONCURRENT_BATCHES_PER_PROJECT,
    maxConcurrentResultUploads: e.MESHBENCH_MAX_CONCURRENT_RESULT_UPLOADS,
    maxConcurrentResultUploadsPerProject: e.MESHBENCH_MAX_CONCURRENT_RESULT_UPLOADS_PER_PROJECT,
    uploadConnections: e.MESHBENCH_UPLOAD_CONNECTIONS,
    bodyMinRate: e.MESHBENCH_BODY_MIN_RATE,
    bodyRateWindowMs: e.MESHBENCH_BODY_RATE_WINDOW_MS,
    maxHeldBytes: e.MESHBENCH_MAX_HELD_BYTES,
    logLevel: e.MESHBENCH_LOG_LEVEL,
  };
}
