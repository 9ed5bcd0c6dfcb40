import { loadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { decodeIstioCsv } from './istio-csv.decoder.ts';
import { ResultFileError } from './result-file-error.ts';
import { publicFixture } from './test-fixtures.ts';

const file = (f: string) => publicFixture(`istio-tools/${f}`);

function decoded(text: string) {
  const out = decodeIstioCsv(text);
  for (const r of out.results) expect(loadResult.parse(r)).toEqual(r);
  return out;
}

function thrown(fn: () => unknown): ResultFileError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ResultFileError);
    return err as ResultFileError;
  }
  throw new Error('expected a ResultFileError');
}

function modes(results: Array<{ mode: string }>) {
  const count: Record<string, number> = {};
  for (const r of results) count[r.mode] = (count[r.mode] ?? 0) + 1;
  return count;
}

describe('decodeIstioCsv on the 2020 header (istio_proxy_* columns)', () => {
  it('reads benchmark.csv', () => {
    const { results, unmapped } = decoded(file('benchmark.csv'));
    expect(results).toHaveLength(82); // 83 lines, one header
    // Labels end in _both (58 rows) or _baseline (24 rows), counted in the file
    expect(modes(results)).toEqual({ both: 58, baseline: 24 });
    // Line 2
    expect(results[0]).toMatchObject({
      mode: 'both',
      startedAt: '2020-08-12T08:44:44.445810184Z',
      durationMs: 240000, // ActualDuration 240 (s)
      connections: 8, // NumThreads
      achievedRps: 1000, // ActualQPS
      targetRps: 1000, // qps_1000 in the label
      percentiles: [
        { p: 50, ms: 2.241 }, // 2241 us
        { p: 90, ms: 2.839 },
        { p: 99, ms: 3.363 },
      ],
      clientCpuCores: 0.2770500325408092, // cpu_mili_avg_istio_proxy_fortioclient 277.0500325408092
      serverCpuCores: Number('0.23600727172688872'), // 236.00727172688872 milli-cores, as JS reads it
      clientMemMiB: 70.309375, // mem_Mi_avg_istio_proxy_fortioclient
      serverMemMiB: 103.787890625,
      serverMemMiBMax: null,
      labels: {
        label: 'ecbc1c65_qps_1000_c_8_1024_v2-stats-nullvm_both',
        sha: 'ecbc1c65',
        payloadBytes: '1024',
        config: 'v2-stats-nullvm',
      },
    });
    // Line 3: ff93ac4f_qps_10_c_16_1024_none_mtls_baseline
    expect(results[1]).toMatchObject({
      mode: 'baseline',
      targetRps: 10,
      connections: 16,
      labels: { config: 'none_mtls' },
      percentiles: [
        { p: 50, ms: 0.517 },
        { p: 90, ms: 0.634 },
        { p: 99, ms: 0.698 },
      ],
    });
    expect(unmapped).toEqual([
      'cpu_mili_avg_istio_proxy_istio-ingressgateway',
      'mem_Mi_avg_istio_proxy_istio-ingressgateway',
    ]);
  });
});

describe('decodeIstioCsv on the 2019 header (*_deployment_proxy columns, max memory)', () => {
  it('reads runner_v12perf.csv', () => {
    const { results, unmapped } = decoded(file('runner_v12perf.csv'));
    expect(results).toHaveLength(35);
    // _base (7), _both and _nomix_both (14), _serveronly and _nomix_serveronly (14)
    expect(modes(results)).toEqual({ baseline: 7, both: 14, serveronly: 14 });
    // Line 2: e955a07e_qps_1000_c_64_1024_serveronly,64,1000,9315,19171,23904,1085,1462,92,725,869,128,...
    expect(results[0]).toMatchObject({
      mode: 'serveronly',
      connections: 64,
      percentiles: [
        { p: 50, ms: 9.315 },
        { p: 90, ms: 19.171 },
        { p: 99, ms: 23.904 },
      ],
      serverCpuCores: 0.725, // cpu_mili_avg_fortioserver_deployment_proxy 725
      serverCpuCoresMax: 0.869, // cpu_mili_max_fortioserver_deployment_proxy 869
      serverMemMiBMax: 128, // mem_MB_max_fortioserver_deployment_proxy: MiB per prom.py
      serverMemMiB: null, // no average memory column in this header
      clientCpuCores: null, // the client proxy is not in this header
    });
    expect(results[0]?.labels.config).toBeUndefined(); // nothing between size and mode
    expect(unmapped).toEqual([
      'cpu_mili_avg_telemetry_mixer',
      'cpu_mili_max_telemetry_mixer',
      'mem_MB_max_telemetry_mixer',
      'cpu_mili_avg_ingressgateway_proxy',
      'cpu_mili_max_ingressgateway_proxy',
      'mem_MB_max_ingressgateway_proxy',
    ]);
  });

  it('reads perf_dashboard_cur_temp.csv', () => {
    const { results } = decoded(file('perf_dashboard_cur_temp.csv'));
    expect(results).toHaveLength(84);
    expect(modes(results)).toEqual({ baseline: 28, both: 28, serveronly: 28 });
    // Line 2: b4d28171_qps_1000_c_64_1024_none_base,64,1000,863,2776,4138,1,2,60,5,9,109,...
    expect(results[0]).toMatchObject({
      mode: 'baseline',
      labels: { config: 'none' },
      serverCpuCores: 0.005,
      serverCpuCoresMax: 0.009,
      serverMemMiBMax: 109,
    });
  });

  it.each([
    ['perf_dashboard_master.csv', 105, { baseline: 36, both: 35, serveronly: 34 }],
    // this file has no newline after its last row
    ['perf_dashboard_master_temp.csv', 116, { baseline: 39, both: 39, serveronly: 38 }],
    ['perf_dashboard_perf.csv', 93, { baseline: 36, both: 29, serveronly: 28 }],
    ['perf_dashboard_release-1.4.csv', 83, { baseline: 36, both: 24, serveronly: 23 }],
    ['results-istio-1.2_istio1.2.cpu.csv', 35, { baseline: 7, both: 14, serveronly: 14 }],
    ['results-istio-1.2_istio1.2.latency.csv', 35, { baseline: 7, both: 14, serveronly: 14 }],
  ])('reads %s', (name, rows, byMode) => {
    const { results } = decoded(file(name));
    expect(results).toHaveLength(rows);
    expect(modes(results)).toEqual(byMode);
    for (const r of results) {
      expect(r.durationMs).toBe(240000);
      expect(r.percentiles.map((p) => p.p)).toEqual([50, 90, 99]);
      expect(r.startedAt).not.toBeNull();
    }
  });

  it('keeps the last row of a file without a final newline', () => {
    const { results } = decoded(file('perf_dashboard_master_temp.csv'));
    // last line: 2019-11-11T16:05:55.105222743Z,...,c9704c2c_qps_10_c_16_1024_mixer_serveronly,16,10,2391,3160,3991,...
    expect(results.at(-1)).toMatchObject({
      mode: 'serveronly',
      targetRps: 10,
      percentiles: [
        { p: 50, ms: 2.391 },
        { p: 90, ms: 3.16 },
        { p: 99, ms: 3.991 },
      ],
    });
  });
});

describe('decodeIstioCsv on other headers and bad cells', () => {
  const header =
    'Labels,StartTime,RequestedQPS,ActualQPS,NumThreads,RunType,ActualDuration,min,max,p50,p75,p90,p99,p999,errorPercent,Payload';

  it('reads any column order, p999, min/max, "-" and RequestedQPS "max"', () => {
    const text = [
      header,
      'abc123_qps_max_c_2_128_clientonly,2024-01-01T00:00:00Z,99999999,812.4,2,HTTP,30,101,9001,500,600,700,900,1500,0,128',
      'abc123_qps_50_c_2_128_both,2024-01-01T00:01:00Z,50,50,2,HTTP,30,-,-,500,-,700,900,-,0,128',
    ].join('\n');
    const { results, unmapped } = decoded(text);
    expect(results[0]).toMatchObject({
      mode: 'clientonly',
      targetRps: null,
      labels: { requestedQps: 'max', runType: 'HTTP' },
      achievedRps: 812.4,
      minMs: 0.101,
      maxMs: 9.001,
      percentiles: [
        { p: 50, ms: 0.5 },
        { p: 75, ms: 0.6 },
        { p: 90, ms: 0.7 },
        { p: 99, ms: 0.9 },
        { p: 99.9, ms: 1.5 },
      ],
    });
    expect(results[1]).toMatchObject({ targetRps: 50, minMs: null, maxMs: null });
    expect(results[1]?.percentiles.map((p) => p.p)).toEqual([50, 90, 99]);
    expect(unmapped).toEqual(['errorPercent', 'Payload']);
  });

  it('rejects NaN cells with line and column', () => {
    const text = `${header}\nx_both,2024-01-01T00:00:00Z,10,nan,2,HTTP,30,1,2,3,4,5,6,7,0,1\n`;
    const err = thrown(() => decodeIstioCsv(text));
    expect(err.problem).toBe('non_finite');
    expect(err.line).toBe(2);
    expect(err.field).toBe('ActualQPS');
  });

  it('rejects a row with the wrong number of cells', () => {
    const text = `${file('runner_v12perf.csv').split('\n').slice(0, 3).join('\n')}\n1,2,3\n`;
    const err = thrown(() => decodeIstioCsv(text));
    expect(err.line).toBe(4);
    expect(err.message).toContain('3 cells');
  });

  it('rejects a CSV that is not Istio’s', () => {
    expect(thrown(() => decodeIstioCsv('a,b,c\n1,2,3\n')).problem).toBe('format_mismatch');
  });
});
