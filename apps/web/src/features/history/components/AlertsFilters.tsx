// The alerts' filters: project, state and benchmark, each kept in the URL.
export const STATES = ['open', 'acknowledged', 'dismissed', 'all'] as const;

export function AlertsFilters({
  projects,
  project,
  state,
  benchmark,
  set,
}: {
  projects: readonly { id: string; name: string }[];
  project: string | undefined;
  state: (typeof STATES)[number];
  benchmark: string;
  set: (key: string, value: string) => void;
}) {
  return (
    <form className="filters" onSubmit={(e) => e.preventDefault()}>
      <label>
        Project
        <select
          data-testid="alerts-project"
          value={project ?? ''}
          onChange={(e) => set('project', e.target.value)}
        >
          {projects.map((p) => (
            <option key={p.id} value={p.name}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        State
        <select
          data-testid="alerts-state"
          value={state}
          onChange={(e) => set('state', e.target.value === 'open' ? '' : e.target.value)}
        >
          {STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        Benchmark
        <input
          data-testid="alerts-benchmark"
          value={benchmark}
          onChange={(e) => set('benchmark', e.target.value)}
          placeholder="any"
        />
      </label>
    </form>
  );
}
