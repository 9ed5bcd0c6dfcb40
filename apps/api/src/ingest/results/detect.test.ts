import type { ResultFormat } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { detectFormat } from './detect.ts';
import { allFixtures } from './test-fixtures.ts';

// Every fixture file and what it is. A new fixture fails the last test until it is listed.
const EXPECTED: Record<string, ResultFormat | null> = {
  'envoyproxy-nighthawk/fortio_data_large.json': 'fortio',
  'envoyproxy-nighthawk/fortio_data_small.json': 'fortio',
  'envoyproxy-nighthawk/hist_fortio-data_converted-big.json': 'fortio',
  'envoyproxy-nighthawk/hist_fortio-data_golden.json': 'fortio',
  'envoyproxy-nighthawk/hist_fortio.json': 'fortio',
  // Nighthawk's Fortio-compatible output is Fortio's format.
  'envoyproxy-nighthawk/output_formatter.medium.fortio.gold': 'fortio',
  'envoyproxy-nighthawk/output_formatter.medium.fortio-noquirks.gold': 'fortio',
  'envoyproxy-nighthawk/output_formatter.json.gold': 'nighthawk',
  'envoyproxy-nighthawk/percentile-column-overflow.json': 'nighthawk',
  'envoyproxy-nighthawk/hist_test_test_data_big_sample.json': 'nighthawk',
  'envoyproxy-nighthawk/hist_test_test_data_large-sample.json': 'nighthawk',
  'envoyproxy-nighthawk/hist_test_test_data_small_sample.json': 'nighthawk',
  // Nighthawk's other outputs are for people or Prometheus; the YAML golden holds
  // unfilled @version@ placeholders, so it is not YAML until a build fills them.
  'envoyproxy-nighthawk/output_formatter.yaml.gold': null,
  'envoyproxy-nighthawk/output_formatter.csv.gold': null,
  'envoyproxy-nighthawk/output_formatter.txt.gold': null,
  'envoyproxy-nighthawk/output_formatter.dotted.gold': null,
  'envoyproxy-nighthawk/output_formatter.prometheus.gold': null,
  // Single histogram protos, not results.
  'envoyproxy-nighthawk/hdr_proto_json.gold': null,
  'envoyproxy-nighthawk/circllhist_proto_json.gold': null,
  'istio-tools/benchmark.csv': 'istio-csv',
  'istio-tools/perf_dashboard_cur_temp.csv': 'istio-csv',
  'istio-tools/perf_dashboard_master.csv': 'istio-csv',
  'istio-tools/perf_dashboard_master_temp.csv': 'istio-csv',
  'istio-tools/perf_dashboard_perf.csv': 'istio-csv',
  'istio-tools/perf_dashboard_release-1.4.csv': 'istio-csv',
  'istio-tools/results-istio-1.2_istio1.2.cpu.csv': 'istio-csv',
  'istio-tools/results-istio-1.2_istio1.2.latency.csv': 'istio-csv',
  'istio-tools/runner_v12perf.csv': 'istio-csv',
  // Grafana dashboards: no data points.
  'kinvolk-service-mesh-benchmark/grafana-wrk2-cockpit-orchestrator.json': null,
  'kinvolk-service-mesh-benchmark/grafana-wrk2-cockpit.json': null,
  'kinvolk-service-mesh-benchmark/grafana-wrk2-summary-orchestrator.json': null,
  'kinvolk-service-mesh-benchmark/grafana-wrk2-summary.json': null,
  'kinvolk-service-mesh-benchmark/wrk2-dash-osm.json': null,
  'service-mesh-performance/meshery_test_results.json': 'smp',
  'service-mesh-performance/smp_result_example.yaml': 'smp',
  // jHiccup's logs from HdrHistogram's own tests.
  'hdrhistogram/jHiccup-2.0.7S.logV2.hlog': 'hdr-log',
  'hdrhistogram/tagged-Log.logV2.hlog': 'hdr-log',
  // A real `k6 run --out json` stream (fixtures/public/k6/PROVENANCE.md), kept gzipped.
  'k6/czrpb-workloads-k6out.json.gz': 'k6-ndjson',
  'local/k6-handle-summary.json': 'k6',
  'local/k6-out-json.ndjson': 'k6-ndjson',
  'local/k6-summary-export.json': 'k6',
  'local/oha-json.json': 'oha',
  'local/k6-v1-machine-readable.json': 'k6',
  'locust/docs-0.13.0-example_distribution.csv': 'locust',
  'locust/docs-0.13.0-example_requests.csv': 'locust',
  'local/locust-0.13.0-samples.tsv': null,
  'local/locust-0.13.0_distribution.csv': 'locust',
  'local/locust-0.13.0_requests.csv': 'locust',
  'local/locust-2.12.1-2-workers.json': 'locust',
  'local/locust-2.12.1.json': 'locust',
  'local/locust-2.12.1_exceptions.csv': 'locust',
  'local/locust-2.12.1_failures.csv': 'locust',
  'local/locust-2.12.1_stats.csv': 'locust',
  'local/locust-2.12.1_stats_history.csv': 'locust',
  'local/wrk2-errors.txt': 'wrk2',
  'local/wrk2-readme-basic.txt': 'wrk2',
  'local/wrk2-readme-latency.txt': 'wrk2',
  'local/hey-0.1.4-debian.csv': 'hey',
  'local/wrk-4.1.0-debian.txt': 'wrk',
  'vegeta/ocm-api-load-results.json': 'vegeta',
  'gatling/single_node_with_known_stats-simulation.log': 'gatling',
  // Told by its opening; read from its bytes (gatling-binary.decoder.test.ts).
  'gatling/known_stats-binary-simulation.log': 'gatling',
  'bojand-ghz/SayHello-report1.json': 'ghz',
  'vegeta/e2e-2019-results.json': 'vegeta',
  'vegeta/loadgentest-2016-results.json': 'vegeta',
  'apache-jmeter/HTMLReportTestFile.csv': 'jmeter',
  'apache-jmeter/HTMLReportFalseTestFile.csv': 'jmeter',
};

describe('detectFormat', () => {
  const fixtures = allFixtures();

  it('finds the fixtures beside the repo', () => {
    // The shared fixtures are part of the checkout; an empty list would test nothing.
    expect(fixtures.length).toBeGreaterThanOrEqual(Object.keys(EXPECTED).length);
  });

  it.each(Object.entries(EXPECTED))('%s -> %s', async (name, format) => {
    const f = fixtures.find((x) => x.name === name);
    expect(f, `${name} is missing`).toBeDefined();
    expect(await detectFormat(f!.text)).toBe(format);
  });

  it('knows every fixture', () => {
    expect(fixtures.map((f) => f.name).filter((n) => !(n in EXPECTED))).toEqual([]);
  });

  it('tells a YAML Nighthawk output (placeholders filled) from SMP YAML', async () => {
    const yaml = fixtures
      .find((f) => f.name === 'envoyproxy-nighthawk/output_formatter.yaml.gold')!
      .text.replace(/@version_\w+@/g, '0');
    expect(await detectFormat(yaml)).toBe('nighthawk');
  });

  it('returns null for broken or foreign content', async () => {
    expect(await detectFormat('')).toBeNull();
    expect(await detectFormat('{"DurationHistogram": {"Count": 1')).toBeNull();
    expect(await detectFormat('hello world')).toBeNull();
    expect(await detectFormat('a,b,c\n1,2,3\n')).toBeNull();
    expect(await detectFormat('[]')).toBeNull();
    expect(await detectFormat('{"metrics": {"cpu": 1}}')).toBeNull();
  });
});
