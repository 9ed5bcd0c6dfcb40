import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './env.ts';

describe('loadConfig', () => {
  it('has defaults for a person trying it out', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      statsdPort: 8125,
      demo: undefined,
    });
    expect(c.dataDir).toMatch(/\.meshbench$/);
  });
  it('names a malformed variable', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/PORT/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://a/b', DATABASE_READ_URL: 'standby:5432' }),
    ).toThrow(/DATABASE_READ_URL/);
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://standby/b' })).toThrow(
      /DATABASE_READ_URL .*DATABASE_URL, which is unset/,
    );
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://a/b', MESHBENCH_READ_MAX_LAG_MS: '5' }),
    ).toThrow(/MESHBENCH_READ_MAX_LAG_MS/);
    expect(() => loadConfig({ MESHBENCH_DEMO: 'yes' })).toThrow(/MESHBENCH_DEMO/);
    expect(() => loadConfig({ MESHBENCH_ADMIN_TOKEN: 'short' })).toThrow(/MESHBENCH_ADMIN_TOKEN/);
  });
  it('refuses an unknown MESHBENCH_ variable (a typo would otherwise be ignored)', () => {
    expect(() => loadConfig({ MESHBENCH_DEMOO: '1' })).toThrow(ConfigError);
    expect(() => loadConfig({ MESHBENCH_DEMOO: '1' })).toThrow(/MESHBENCH_DEMOO/);
  });
  it("accepts the CLI's own variables, which users export in the same shell", () => {
    const c = loadConfig({ MESHBENCH_URL: 'http://localhost:3000', MESHBENCH_TOKEN: 'mb_x' });
    expect(c.port).toBe(3000);
    expect(JSON.stringify(c)).not.toContain('mb_x');
  });
  it('reads the public URL, refusing what is not one', () => {
    expect(loadConfig({ MESHBENCH_PUBLIC_URL: 'https://mb.example.com/' }).publicUrl).toBe(
      'https://mb.example.com',
    );
    expect(loadConfig({}).publicUrl).toBeUndefined();
    expect(() => loadConfig({ MESHBENCH_PUBLIC_URL: 'mb.example.com' })).toThrow(
      /MESHBENCH_PUBLIC_URL/,
    );
  });
  it('reads the database URL and the demo switch', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      MESHBENCH_DEMO: '0',
      STATSD_PORT: '0',
    });
    expect(c).toMatchObject({
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/test',
      demo: false,
      statsdPort: 0,
    });
  });
  it('bounds uploads and shutdown, with defaults, and names a bad bound', () => {
    expect(loadConfig({})).toMatchObject({
      bodyTimeoutMs: 30_000,
      requestTimeoutMs: 600_000,
      shutdownTimeoutMs: 10_000,
      maxConcurrentBatches: 4,
      maxConcurrentOtlp: 16,
      otlpBodyDeadlineMs: 30_000,
    });
    expect(loadConfig({ MESHBENCH_BODY_TIMEOUT_MS: '500' }).bodyTimeoutMs).toBe(500);
    expect(() => loadConfig({ MESHBENCH_BODY_TIMEOUT_MS: '0' })).toThrow(
      /MESHBENCH_BODY_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ MESHBENCH_REQUEST_TIMEOUT_MS: '1s' })).toThrow(
      /MESHBENCH_REQUEST_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ MESHBENCH_SHUTDOWN_TIMEOUT_MS: '-1' })).toThrow(
      /MESHBENCH_SHUTDOWN_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ MESHBENCH_MAX_CONCURRENT_BATCHES: '0' })).toThrow(
      /MESHBENCH_MAX_CONCURRENT_BATCHES/,
    );
    expect(loadConfig({ MESHBENCH_MAX_CONCURRENT_OTLP: '2' }).maxConcurrentOtlp).toBe(2);
    expect(() => loadConfig({ MESHBENCH_MAX_CONCURRENT_OTLP: 'x' })).toThrow(
      /MESHBENCH_MAX_CONCURRENT_OTLP/,
    );
    expect(() => loadConfig({ MESHBENCH_OTLP_BODY_DEADLINE_MS: '10' })).toThrow(
      /MESHBENCH_OTLP_BODY_DEADLINE_MS/,
    );
  });
});
