import { loadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { decodeSmp as fromDocument } from './smp.decoder.ts';
import { documentOf, publicFixture, rejected } from './test-fixtures.ts';

/** The decoder on a JSON or YAML text, as decodeResults hands it the parsed file. */
const decodeSmp = async (text: string) => fromDocument(await documentOf(text));

const file = (f: string) => publicFixture(`service-mesh-performance/${f}`);

async function decoded(text: string) {
  const out = await decodeSmp(text);
  for (const r of out.results) expect(loadResult.parse(r)).toEqual(r);
  return out;
}

const thrown = rejected;

describe('decodeSmp: the SMP result document', () => {
  it("reads the spec's example (YAML)", async () => {
    const { results, unmapped } = await decoded(file('smp_result_example.yaml'));
    expect(results).toHaveLength(1);
    const r = results[0]!;
    expect(r.connections).toBe(1); // client.connections
    expect(r.achievedRps).toBe(0.9999971285438009); // client.rps
    expect(r.minMs).toBe(0.012007082); // latencies_ms.min, already ms
    expect(r.meanMs).toBe(0.023581708206018594); // latencies_ms.average
    expect(r.maxMs).toBe(0.350472228);
    expect(r.percentiles).toEqual([
      { p: 50, ms: 0.021899077590884428 },
      { p: 90, ms: 0.033029247910863514 },
      { p: 99, ms: 0.055 },
    ]);
    expect(r.startedAt).toBe('2020-03-17T14:53:05.499893378Z');
    // end_time 17:53:05.530905194 - start_time 14:53:05.499893378 = 3 h + 31.011816 ms
    expect(r.durationMs).toBe(10800031.011816);
    expect(r.labels).toEqual({
      expUuid: 'a0b57497-12f1-40a5-ae78-3fd3414c4a48',
      url: 'http://192.168.1.15/productpage',
      'env.kubernetes': 'v1.15.5',
    });
    expect(r.requests).toBeNull();
    expect(r.errors).toBeNull();
    expect(unmapped).toEqual([]); // metrics: {} is empty
  });

  it("reads the spec proto's layout (JSON, latencies_ms and actual_QPS at the top)", async () => {
    const text = JSON.stringify({
      smp_version: 'v0.0.1',
      id: 'r-1',
      labels: { mesh: 'istio' },
      start_time: '2024-01-01T00:00:00Z',
      end_time: '2024-01-01T00:01:00.5Z',
      latencies_ms: { min: 0.5, average: 1.25, p50: 1.1, p90: 2, p99: 4.5, max: 9 },
      actual_QPS: 998.5,
      details_uri: 'https://example.test/r-1',
    });
    const r = (await decoded(text)).results[0]!;
    expect(r.achievedRps).toBe(998.5);
    expect(r.durationMs).toBe(60500);
    expect(r.percentiles.map((p) => p.p)).toEqual([50, 90, 99]);
    expect(r.labels).toMatchObject({ mesh: 'istio', smpVersion: 'v0.0.1', id: 'r-1' });
  });

  it('rejects .nan in YAML with the field', async () => {
    const text = file('smp_result_example.yaml').replace('p99: 0.055', 'p99: .nan');
    const err = await thrown(() => decodeSmp(text));
    expect(err.problem).toBe('non_finite');
    expect(err.field).toBe('client.latencies_ms.p99');
  });

  it('rejects YAML that does not parse, with its line', async () => {
    const err = await thrown(() => decodeSmp('client:\n  connections: [1\n'));
    expect(err.line).toBeGreaterThan(0);
  });

  it('rejects what is not an SMP result', async () => {
    const err = await thrown(() => decodeSmp('name: something else\n'));
    expect(err.problem).toBe('format_mismatch');
  });
});

describe("decodeSmp: Meshery's results (test-results.json)", () => {
  it('reads each runner result as Fortio, with the record around it as labels', async () => {
    const { results, unmapped } = await decoded(file('meshery_test_results.json'));
    expect(results).toHaveLength(3);
    const [noMesh, linkerd, linkerd2] = results as [
      (typeof results)[0],
      (typeof results)[0],
      (typeof results)[0],
    ];

    expect(noMesh.requests).toBe(78); // DurationHistogram.Count
    expect(noMesh.achievedRps).toBe(2.5838099794764338);
    expect(noMesh.durationMs).toBe(30187.978458); // 30187978458 ns
    expect(noMesh.targetRps).toBeNull(); // "RequestedQPS": "max"
    expect(noMesh.labels.requestedQps).toBe('max');
    expect(noMesh.errors).toBe(0); // "200": 78
    expect(noMesh.percentiles).toEqual([
      { p: 50, ms: Number('383.33333333333336') }, // 0.38333333333333336 s
      { p: 75, ms: 406.5789473684211 },
      { p: 90, ms: 437.3684210526316 },
      { p: 99, ms: 502.17102424 },
      { p: 99.9, ms: 509.098565224 },
    ]);
    expect(noMesh.histogram).toHaveLength(5);
    expect(noMesh.histogram?.[4]).toEqual({ fromMs: 500, toMs: 509.868292, count: 1 });
    expect(noMesh.startedAt).toBe('2022-04-26T19:56:40.358118+05:30'); // Fortio's StartTime
    expect(noMesh.labels).toMatchObject({
      name: 'No mesh_1650983199033',
      mesheryId: 'f9ccd668-9d26-4f70-8a51-47de5af3c502',
      loadGenerator: 'fortio',
      kubernetesVersion: 'v1.22.5',
      url: 'https://www.facebook.com',
    });
    expect(noMesh.labels.mesh).toBeUndefined(); // "mesh": null

    expect(linkerd.errors).toBe(300); // "RetCodes": {"-1": 300}: every call failed to connect
    expect(linkerd.errorsByCode).toEqual({ '-1': 300 });
    expect(linkerd.requests).toBe(300);
    expect(linkerd.targetRps).toBe(10); // "RequestedQPS": "10"
    expect(linkerd.connections).toBe(100);
    expect(linkerd.durationMs).toBe(30005.873812);
    expect(linkerd.labels.mesh).toBe('linkerd');
    expect(linkerd.percentiles.at(-1)).toEqual({ p: 99.9, ms: 5.110715300000001 });

    expect(linkerd2.histogram).toHaveLength(16);
    expect(linkerd2.meanMs).toBe(6.578617189999999); // "Avg": 0.006578617189999999

    expect(unmapped).toContain('runner_results[].Sizes');
    expect(unmapped).toContain('runner_results[].kubernetes.nodes');
    expect(unmapped).toContain('test_start_time');
    expect(unmapped).not.toContain('server_metrics'); // null
  });

  it('names the record and run of a bad value', async () => {
    const doc = JSON.parse(file('meshery_test_results.json'));
    doc[2].runner_results[0].ActualQPS = 'Infinity';
    const err = await thrown(() => decodeSmp(JSON.stringify(doc)));
    expect(err.problem).toBe('non_finite');
    expect(err.field).toBe('[2].runner_results[0].ActualQPS');
  });
});
