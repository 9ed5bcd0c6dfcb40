// The history's filters: benchmark, metric, scenario, axis, branch and mesh, and a data-plane
// history's load point. Every value lives in the URL.
import type { History, HistoryMetric } from '@meshbench/schema';
import type { metricOptions } from '../../../charts/prepare/history.ts';

export function HistoryFilters({
  params,
  set,
  benchmarks,
  metric,
  options,
  scenario,
  scenarios,
  byTime,
  dataPlane,
  loadPoint,
}: {
  params: URLSearchParams;
  set: (key: string, value: string) => void;
  benchmarks: readonly string[];
  metric: HistoryMetric;
  options: ReturnType<typeof metricOptions>;
  scenario: string | undefined;
  scenarios: { scenario: string; runs: number }[];
  byTime: boolean;
  dataPlane: boolean;
  loadPoint: History['loadPoint'];
}) {
  return (
    <form className="filters" onSubmit={(e) => e.preventDefault()}>
      <label>
        Benchmark
        <select
          data-testid="history-benchmark"
          value={params.get('benchmark') ?? ''}
          onChange={(e) => set('benchmark', e.target.value)}
        >
          <option value="">choose…</option>
          {benchmarks.map((b) => (
            <option key={b}>{b}</option>
          ))}
        </select>
      </label>
      <label>
        Metric
        <select
          data-testid="history-metric"
          value={metric}
          onChange={(e) => set('metric', e.target.value)}
        >
          {options.map((g) => (
            <optgroup key={g.group} label={g.group}>
              {g.metrics.map((m) => (
                <option key={m.metric} value={m.metric}>
                  {m.label}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </label>
      <label>
        Scenario
        <select
          data-testid="history-scenario"
          value={scenario ?? ''}
          onChange={(e) => set('scenario', e.target.value)}
        >
          {scenarios.length === 0 && <option value="">—</option>}
          {scenario && !scenarios.some((x) => x.scenario === scenario) && (
            <option value={scenario}>{scenario} (no runs)</option>
          )}
          {scenarios.map((x) => (
            <option key={x.scenario} value={x.scenario}>
              {x.scenario} ({x.runs})
            </option>
          ))}
        </select>
      </label>
      <label>
        Axis
        <select
          data-testid="history-axis"
          value={byTime ? 'time' : 'order'}
          onChange={(e) => set('axis', e.target.value === 'order' ? 'order' : '')}
        >
          <option value="time">time</option>
          <option value="order">run order</option>
        </select>
      </label>
      {(['branch', 'mesh'] as const).map((f) => (
        <label key={f}>
          {f[0]?.toUpperCase()}
          {f.slice(1)}
          <input
            value={params.get(f) ?? ''}
            onChange={(e) => set(f, e.target.value)}
            placeholder="any"
          />
        </label>
      ))}
      {dataPlane && <LoadPointInputs params={params} set={set} loadPoint={loadPoint} />}
    </form>
  );
}

/** A data-plane history's load point: blank means the most connections and the highest target. */
function LoadPointInputs({
  params,
  set,
  loadPoint,
}: {
  params: URLSearchParams;
  set: (key: string, value: string) => void;
  loadPoint: History['loadPoint'];
}) {
  return (
    <>
      <label>
        Connections
        <input
          data-testid="history-connections"
          inputMode="numeric"
          value={params.get('connections') ?? ''}
          onChange={(e) => set('connections', e.target.value)}
          placeholder={
            loadPoint?.connections === null || !loadPoint ? 'most' : String(loadPoint.connections)
          }
        />
      </label>
      <label>
        Target RPS
        <input
          data-testid="history-target-rps"
          inputMode="numeric"
          value={params.get('targetRps') ?? ''}
          onChange={(e) => set('targetRps', e.target.value)}
          placeholder={
            loadPoint?.targetRps === null || !loadPoint ? 'highest' : String(loadPoint.targetRps)
          }
        />
      </label>
    </>
  );
}
