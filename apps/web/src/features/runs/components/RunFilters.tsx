// Mesh / benchmark / scenario filters; the URL's query string is their only state.
import type { FormEvent } from 'react';
import type { RunFilters as Filters } from '../../../api/urls.ts';

export const FILTER_KEYS = ['mesh', 'benchmark', 'scenario'] as const;

export function RunFilters({
  value,
  onChange,
}: {
  value: Filters;
  onChange: (filters: Filters) => void;
}) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next: Filters = {};
    for (const key of FILTER_KEYS) {
      const v = String(form.get(key) ?? '').trim();
      if (v) next[key] = v;
    }
    onChange(next);
  };
  const active = FILTER_KEYS.some((k) => value[k]);
  return (
    // The key re-mounts the inputs when the URL changes (back button, Clear).
    <form
      className="filters"
      onSubmit={submit}
      key={JSON.stringify(value)}
      aria-label="Filter runs"
    >
      {FILTER_KEYS.map((key) => (
        <label key={key}>
          <span>{key}</span>
          <input
            name={key}
            defaultValue={value[key] ?? ''}
            placeholder={key === 'mesh' ? 'consul, istio…' : 'any'}
            autoComplete="off"
            spellCheck={false}
          />
        </label>
      ))}
      <button type="submit" className="button button-primary">
        Filter
      </button>
      {active && (
        <button type="button" className="button" onClick={() => onChange({})}>
          Clear
        </button>
      )}
    </form>
  );
}
