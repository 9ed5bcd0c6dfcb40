// The runs list's filters: text fields that suggest the values the API knows (facets) and
// match any part of a value, ignoring case; a status, labels as k=v (or k:v), a date range
// and free-text search. The URL is their only state; a label in another form is refused with
// what is wrong, not dropped.
import { type RunFacets, runStatus } from '@meshbench/schema';
import { type FormEvent, useState } from 'react';
import {
  labelFilter,
  type RunListFilters,
  TEXT_FILTERS,
  type TextFilter,
} from '../hooks/run-list-url.ts';

const SUGGESTIONS: Record<TextFilter, Exclude<keyof RunFacets, 'benchmarkRuns'>> = {
  mesh: 'meshes',
  version: 'versions',
  benchmark: 'benchmarks',
  scenario: 'scenarios',
  platform: 'platforms',
};

const PLACEHOLDERS: Record<TextFilter, string> = {
  mesh: 'consul, ist…',
  version: 'any',
  benchmark: 'any',
  scenario: 'any',
  platform: 'any',
};

export function isFiltered(f: RunListFilters): boolean {
  return (
    TEXT_FILTERS.some((k) => f[k]) ||
    !!f.status ||
    f.labels.length > 0 ||
    !!f.from ||
    !!f.to ||
    !!f.q
  );
}

export function RunFilters({
  value,
  facets,
  labelErrors = [],
  onChange,
}: {
  value: RunListFilters;
  facets: RunFacets | undefined;
  /** Labels of the URL in a wrong form, left out of the query. */
  labelErrors?: string[];
  onChange: (filters: RunListFilters) => void;
}) {
  // The typed label that was refused, kept in its field with the reason beside it.
  const [refused, setRefused] = useState<{ text: string; error: string } | null>(null);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const next: RunListFilters = { labels: [...value.labels] };
    for (const key of TEXT_FILTERS) {
      const v = text(key);
      if (v) next[key] = v;
    }
    const status = text('status');
    if (status) next.status = status;
    const label = text('label');
    if (label) {
      const parsed = labelFilter(label);
      if ('error' in parsed) {
        setRefused({ text: label, error: parsed.error });
        return;
      }
      if (!next.labels.includes(parsed.label)) next.labels.push(parsed.label);
    }
    setRefused(null);
    const from = text('from');
    if (from) next.from = from;
    const to = text('to');
    if (to) next.to = to;
    const q = text('q');
    if (q) next.q = q;
    onChange(next);
  };
  const removeLabel = (label: string) =>
    onChange({ ...value, labels: value.labels.filter((l) => l !== label) });
  const errors = [...(refused ? [refused.error] : []), ...labelErrors];
  return (
    // The key re-mounts the inputs when the URL changes (back button, Clear).
    <form
      className="filters run-filters"
      onSubmit={submit}
      key={`${JSON.stringify(value)}${refused?.text ?? ''}`}
      aria-label="Filter runs"
    >
      {TEXT_FILTERS.map((key) => (
        <label key={key}>
          <span>{key}</span>
          <input
            name={key}
            defaultValue={value[key] ?? ''}
            placeholder={PLACEHOLDERS[key]}
            list={`facet-${key}`}
            autoComplete="off"
            spellCheck={false}
          />
          <datalist id={`facet-${key}`}>
            {facets?.[SUGGESTIONS[key]].map((v) => (
              <option key={v} value={v} />
            ))}
          </datalist>
        </label>
      ))}
      <label>
        <span>status</span>
        <select name="status" defaultValue={value.status ?? ''}>
          <option value="">any</option>
          {runStatus.options.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>label</span>
        <input
          name="label"
          placeholder="key=value"
          list="facet-label"
          autoComplete="off"
          spellCheck={false}
          defaultValue={refused?.text ?? ''}
          aria-invalid={refused ? true : undefined}
          aria-describedby={errors.length > 0 ? 'label-error' : undefined}
          data-testid="label-input"
        />
        <datalist id="facet-label">
          {facets?.labelKeys.map((k) => (
            <option key={k} value={`${k}=`} />
          ))}
        </datalist>
      </label>
      <label>
        <span>from</span>
        <input type="date" name="from" defaultValue={value.from ?? ''} className="date" />
      </label>
      <label>
        <span>to</span>
        <input type="date" name="to" defaultValue={value.to ?? ''} className="date" />
      </label>
      <label className="search">
        <span>search</span>
        <input
          type="search"
          name="q"
          defaultValue={value.q ?? ''}
          placeholder="mesh, scenario, label…"
          autoComplete="off"
          spellCheck={false}
        />
      </label>
      <div className="filter-buttons">
        <button type="submit" className="button button-primary">
          Filter
        </button>
        {isFiltered(value) && (
          <button type="button" className="button" onClick={() => onChange({ labels: [] })}>
            Clear
          </button>
        )}
      </div>
      {errors.length > 0 && (
        <p className="filter-error" id="label-error" role="alert" data-testid="label-error">
          {errors.join('; ')}. Labels filter as key=value, as the list shows them.
        </p>
      )}
      {value.labels.length > 0 && (
        <div className="filter-labels" data-testid="label-filters">
          {value.labels.map((label) => (
            <span key={label} className="label-chip filter-chip">
              {label}
              <button
                type="button"
                aria-label={`remove label filter ${label}`}
                onClick={() => removeLabel(label)}
              >
                ×
              </button>
            </span>
          ))}
        </div>
      )}
    </form>
  );
}
