import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import type { MetricsIngestService } from './metrics-ingest.service.ts';
import { otlpService } from './otlp.service.ts';

describe('OTLP overload', () => {
  it('answers 503 past the requests in progress it may take, and recovers', () => {
    const otlp = otlpService({ ingest: {} as MetricsIngestService, maxInFlight: 2 });
    const a = otlp.admit();
    const b = otlp.admit();
    let error: unknown;
    try {
      otlp.admit();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).statusCode).toBe(503);
    expect(otlp.counters.overloaded).toBe(1);
    a();
    a(); // releasing twice frees one slot only
    expect(() => otlp.admit()).not.toThrow();
    expect(() => otlp.admit()).toThrow(AppError);
    b();
  });
});
