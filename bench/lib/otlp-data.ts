// OTLP ExportMetricsServiceRequest bodies for the benches, encoded with the OpenTelemetry
// project's generated protobuf code (the same the API decodes with).
import root from '@opentelemetry/otlp-transformer/build/src/generated/root.js';

interface RequestType {
  fromObject(o: object): unknown;
  encode(m: unknown): { finish(): Uint8Array };
  decode(bytes: Uint8Array): unknown;
}
const Request = (
  root as unknown as {
    opentelemetry: {
      proto: { collector: { metrics: { v1: { ExportMetricsServiceRequest: RequestType } } } };
    };
  }
).opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;

export const ns = (ms: number) => String(Math.round(ms) * 1_000_000);
export const str = (key: string, value: string) => ({ key, value: { stringValue: value } });

export function encodeRequest(runRef: string, metrics: object[]): Uint8Array {
  return Request.encode(
    Request.fromObject({
      resourceMetrics: [
        {
          resource: {
            attributes: [str('service.name', 'consul-server'), str('meshbench.run', runRef)],
          },
          scopeMetrics: [{ scope: { name: 'bench', version: '1' }, metrics }],
        },
      ],
    }),
  ).finish();
}

/** Decodes a body with the generated code and protobufjs' own reader, as a peer would. */
export const decodeRequest = (bytes: Uint8Array) => Request.decode(bytes);
