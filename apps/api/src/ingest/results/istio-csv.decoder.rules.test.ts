// The rules of istio-csv.decoder.ts one by one (issue 28): expected values from what
// istio/tools perf/benchmark/runner/fortio.py (convertData, write_csv) and prom.py write, and
// from the CSVs istio/tools kept (fixtures/public/istio-tools).
import type { LoadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { decodeIstioCsv, isIstioCsvHeader, splitCsvLine } from './istio-csv.decoder.ts';
import { publicFixture, thrown } from './test-fixtures.ts';

const file = (f: string) => publicFixture(`istio-tools/${f}`);
const HEADER = 'Labels,NumThreads,ActualQPS';
const one = (header: string, row: string) =>
  decodeIstioCsv(`${header}\n${row}\n`).results[0] as LoadResult;

describe('the header and its cells', () => {
  it("is Istio's when it has Labels and ActualQPS or NumThreads, trimmed or quoted", () => {
    expect(isIstioCsvHeader('Labels,ActualQPS')).toBe(true);
    expect(isIstioCsvHeader('Labels,NumThreads')).toBe(true);
    expect(isIstioCsvHeader(' Labels , "NumThreads" ')).toBe(true);
    expect(isIstioCsvHeader('Labels,p50')).toBe(false);
    expect(isIstioCsvHeader('ActualQPS,NumThreads')).toBe(false);
  });

  it('splits one RFC 4180 record: quoted commas, doubled quotes, empty cells', () => {
    expect(splitCsvLine('a,"b,c","d""e",,"f"')).toEqual(['a', 'b,c', 'd"e', '', 'f']);
    expect(splitCsvLine('')).toEqual(['']);
    expect(splitCsvLine('"x""')).toEqual(['x"']);
  });

  it('a file whose first non-blank line is no such header names that line', () => {
    expect(thrown(() => decodeIstioCsv('\n\na,b\n'))).toMatchObject({
      problem: 'format_mismatch',
      line: 3,
    });
    expect(thrown(() => decodeIstioCsv('\n \n'))).toMatchObject({ line: 1 });
    expect(thrown(() => decodeIstioCsv(''))).toMatchObject({ line: 1 });
  });

  it('reads past a byte-order mark, blank lines and CRLF', () => {
    const { results } = decodeIstioCsv(`\uFEFF\r\n${HEADER}\r\n\r\nx_both,4,10\r\n  \r\n`);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ connections: 4, achievedRps: 10 });
  });

  it('names a row of the wrong width by its line and both counts', () => {
    const err = thrown(() => decodeIstioCsv(`${HEADER}\nx,1,2\nx,1`));
    expect(err).toMatchObject({ problem: 'invalid_value', line: 3 });
    expect(err.message).toBe('line 3 has 2 cells but the header has 3');
  });

  it('holds at most 10,000 results', () => {
    const rows = Array.from({ length: 10_000 }, () => 'x,1,1').join('\n');
    expect(decodeIstioCsv(`${HEADER}\n${rows}`).results).toHaveLength(10_000);
    const err = thrown(() => decodeIstioCsv(`${HEADER}\n${rows}\nx,1,1`));
    expect(err).toMatchObject({ problem: 'too_large', line: 10_002 });
    expect(err.message).toBe(
      'line 10002: the file holds more than the 10000 load results one file may hold',
    );
  });
});

describe('the columns fortio.py writes', () => {
  it('StartTime as RFC 3339; ActualDuration in whole seconds; "-" as no value', () => {
    const h = `${HEADER},StartTime,ActualDuration`;
    expect(one(h, 'x,1,1, 2024-01-01T00:00:00Z ,240')).toMatchObject({
      startedAt: '2024-01-01T00:00:00Z',
      durationMs: 240_000,
    });
    expect(one(h, 'x,1,1,-,-')).toMatchObject({ startedAt: null, durationMs: null });
    expect(one(h, 'x, - , - ,-, - ')).toMatchObject({ connections: null, achievedRps: null });
  });

  it('NumThreads is a whole count, named where it is not', () => {
    expect(thrown(() => decodeIstioCsv(`${HEADER}\nx,1.5,1`))).toMatchObject({
      field: 'NumThreads',
      line: 2,
    });
  });

  it('RequestedQPS: a rate, or 99999999 for "max" (no target rate)', () => {
    const h = `${HEADER},RequestedQPS`;
    expect(one(h, 'x,1,1,250')).toMatchObject({ targetRps: 250 });
    expect(one(h, 'x,1,1,250').labels.requestedQps).toBeUndefined();
    expect(one(h, 'x,1,1,99999999')).toMatchObject({
      targetRps: null,
      labels: { requestedQps: 'max' },
    });
  });

  it('RunType is kept when it says something', () => {
    const h = `${HEADER},RunType`;
    expect(one(h, 'x,1,1, HTTP ').labels.runType).toBe('HTTP');
    expect(one(h, 'x,1,1,').labels.runType).toBeUndefined();
    expect(one(h, 'x,1,1,-').labels.runType).toBeUndefined();
  });

  it('p<N> is the percentile without its point: p9 9, p99 99, p999 99.9, p9999 99.99, p100 100', () => {
    const h = `${HEADER},p100,p9999,p999,p99,p9,min,max`;
    const r = one(h, 'x,1,1,5000,4000,3000,2000,1000,900,5001');
    expect(r?.percentiles).toEqual([
      { p: 9, ms: 1 },
      { p: 99, ms: 2 },
      { p: 99.9, ms: 3 },
      { p: 99.99, ms: 4 },
      { p: 100, ms: 5 },
    ]);
    expect(r).toMatchObject({ minMs: 0.9, maxMs: 5.001 });
  });

  it('prom.py resources: milli-cores to cores, MiB as they are, per side, avg and max', () => {
    const h = `${HEADER},cpu_mili_avg_fortioclient_proxy,cpu_mili_max_fortio_deployment_proxy,mem_MB_avg_istio_proxy_fortioclient,mem_Mi_max_fortioclient_proxy,cpu_mili_avg_fortioserver_proxy,cpu_mili_max_istio_proxy_fortioserver,mem_Mi_avg_fortioserver_deployment_proxy,mem_MB_max_fortioserver_proxy,cpu_mili_avg_other_proxy`;
    const { results, unmapped } = decodeIstioCsv(
      `${h}\nx,1,1,250,500,70.5,80,125,1500,90,100.25,7`,
    );
    expect(results[0]).toMatchObject({
      clientCpuCores: 0.25,
      clientCpuCoresMax: 0.5,
      clientMemMiB: 70.5,
      clientMemMiBMax: 80,
      serverCpuCores: 0.125,
      serverCpuCoresMax: 1.5,
      serverMemMiB: 90,
      serverMemMiBMax: 100.25,
    });
    expect(unmapped).toEqual(['cpu_mili_avg_other_proxy']);
    const dash = decodeIstioCsv(`${HEADER},cpu_mili_avg_fortioclient_proxy\nx,1,1,-`).results[0];
    expect(dash?.clientCpuCores).toBeNull();
  });
});

describe("the runner's Labels: <sha>_qps_<qps>_c_<connections>_<payload>_<config>_<mode>", () => {
  it('sha, payload, config without the mode, and the rate when no RequestedQPS says it', () => {
    const r = one(HEADER, 'ecbc1c65_qps_1000_c_8_1024_v2-stats-nullvm_both,8,1000');
    expect(r).toMatchObject({ mode: 'both', targetRps: 1000 });
    expect(r?.labels).toEqual({
      label: 'ecbc1c65_qps_1000_c_8_1024_v2-stats-nullvm_both',
      sha: 'ecbc1c65',
      payloadBytes: '1024',
      config: 'v2-stats-nullvm',
    });
  });

  it('a label with no mode keeps its whole config; one with nothing after the payload none', () => {
    expect(one(HEADER, 'abc_qps_10_c_2_128_none_mtls,2,10')?.labels.config).toBe('none_mtls');
    const bare = one(HEADER, 'abc_qps_10.5_c_2_128,2,10');
    expect(bare?.labels.config).toBeUndefined();
    expect(bare?.targetRps).toBe(10.5);
    expect(one(HEADER, 'abc_qps_10_c_2_128_both,2,10')?.labels.config).toBeUndefined();
  });

  it('RequestedQPS wins over the label, in any column order', () => {
    const before = one(`RequestedQPS,${HEADER}`, '20,abc_qps_10_c_2_128_both,2,10');
    const after = one(`${HEADER},RequestedQPS`, 'abc_qps_10_c_2_128_both,2,10,20');
    expect([before?.targetRps, after?.targetRps]).toEqual([20, 20]);
    // "-": the run had no RequestedQPS, so the label's rate stands.
    expect(one(`${HEADER},RequestedQPS`, 'abc_qps_10_c_2_128_both,2,10,-')?.targetRps).toBe(10);
  });

  it('qps_max names the rate max; a label of another shape is kept as it is', () => {
    const max = one(HEADER, 'abc_qps_max_c_2_128_both,2,10');
    expect(max).toMatchObject({ targetRps: null, labels: { requestedQps: 'max' } });
    const other = one(HEADER, 'my run serveronly,2,10');
    expect(other).toMatchObject({ mode: 'serveronly', labels: { label: 'my run serveronly' } });
    expect(other?.labels.sha).toBeUndefined();
    expect(one(HEADER, 'abc_qps_fast_c_2_128_both,2,10')?.targetRps).toBeNull();
    expect(one(HEADER, '-,2,10')?.labels).toEqual({});
    expect(one(HEADER, ',2,10')?.labels).toEqual({});
  });

  it("runner_v12perf.csv's first row: label, rate and its prom.py columns", () => {
    // 2019-06-06T01:33:07.990208325Z,240,e955a07e_qps_1000_c_64_1024_serveronly,64,1000,9315,19171,23904,...,725,869,128,...
    const { results, unmapped } = decodeIstioCsv(file('runner_v12perf.csv'));
    expect(results[0]).toMatchObject({
      mode: 'serveronly',
      targetRps: 1000,
      connections: 64,
      serverCpuCores: 0.725,
      serverCpuCoresMax: 0.869,
      serverMemMiBMax: 128,
      labels: { sha: 'e955a07e', payloadBytes: '1024' },
    });
    expect(unmapped).toContain('cpu_mili_avg_telemetry_mixer');
  });
});
