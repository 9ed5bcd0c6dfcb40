import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import type { MetricsIngestService } from './metrics-ingest.service.ts';
import { otlpService } from './otlp.service.ts';

const service = () =>
  otlpService({
    ingest: {} as MetricsIngestService,
    maxInFlight: 2,
    maxReceiving: 3,
    maxBufferedBytes: 100,
  });

/** The error `fn` throws. */
function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('nothing thrown');
}

describe('OTLP overload', () => {
  it('answers 503 + Retry-After past the requests in progress it may take, and recovers', () => {
    const otlp = service();
    const a = otlp.admit();
    const b = otlp.admit();
    const error = thrown(() => otlp.admit());
    expect(error.statusCode).toBe(503);
    expect(error.retryAfterS).toBe(1);
    expect(error.message).toContain('MESHBENCH_MAX_CONCURRENT_OTLP');
    expect(otlp.counters.overloaded).toBe(1);
    a();
    a(); // releasing twice frees one slot only
    expect(() => otlp.admit()).not.toThrow();
    expect(() => otlp.admit()).toThrow(AppError);
    b();
  });
  it('bounds bodies arriving apart from the work: slow senders do not take its slots', () => {
    const otlp = service();
    const arriving = [otlp.admitBody(), otlp.admitBody(), otlp.admitBody()];
    expect(thrown(() => otlp.admitBody()).statusCode).toBe(503);
    // The work's slots are all free meanwhile.
    const a = otlp.admit();
    const b = otlp.admit();
    a();
    b();
    arriving[0]?.();
    expect(() => otlp.admitBody()).not.toThrow();
    expect(otlp.counters.overloaded).toBe(1);
  });
  it('bounds the bytes of bodies held at once', () => {
    const otlp = service();
    otlp.buffer(60);
    otlp.buffer(40);
    expect(thrown(() => otlp.buffer(1)).statusCode).toBe(503);
    otlp.unbuffer(40);
    expect(() => otlp.buffer(40)).not.toThrow();
  });
});
