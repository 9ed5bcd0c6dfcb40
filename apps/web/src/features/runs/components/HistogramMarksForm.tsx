// The histogram's marked percentiles and "within" threshold, as a small form: applied on
// submit, into the page's URL (the page reads them back from there).
import { type FormEvent, useEffect, useState } from 'react';
import {
  MAX_MARKED_PERCENTILES,
  type PropagationOptions,
  parsePercentiles,
  parseWithinMs,
} from '../hooks/propagation-options.ts';

export function HistogramMarksForm({
  options,
  onOptions,
  name,
}: {
  options: PropagationOptions;
  onOptions: (options: PropagationOptions) => void;
  /** Unique on the page: ids of the inputs. */
  name: string;
}) {
  const [percentiles, setPercentiles] = useState(options.percentiles.join(', '));
  const [withinMs, setWithinMs] = useState(String(options.withinMs));
  const [error, setError] = useState<string | null>(null);
  // Another change's form (or the back button) changed the URL: show what is in force.
  useEffect(() => {
    setPercentiles(options.percentiles.join(', '));
    setWithinMs(String(options.withinMs));
  }, [options]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const ps = parsePercentiles(percentiles);
    const ms = parseWithinMs(withinMs);
    if (ps === null) {
      setError(
        `Percentiles: up to ${MAX_MARKED_PERCENTILES} numbers in (0, 100], comma-separated.`,
      );
    } else if (ms === null) {
      setError('Within: a number of milliseconds, 0 or more.');
    } else {
      setError(null);
      onOptions({ ...options, percentiles: ps, withinMs: ms });
    }
  };
  return (
    <form className="histogram-marks" onSubmit={submit} data-testid={`${name}-marks`}>
      <label>
        Lines at P{' '}
        <input
          id={`${name}-percentiles`}
          name="percentiles"
          value={percentiles}
          onChange={(e) => setPercentiles(e.target.value)}
          size={12}
          inputMode="decimal"
        />
      </label>
      <label>
        within{' '}
        <input
          id={`${name}-within`}
          name="withinMs"
          value={withinMs}
          onChange={(e) => setWithinMs(e.target.value)}
          size={6}
          inputMode="decimal"
        />{' '}
        ms
      </label>
      <button type="submit">Apply</button>
      {error && (
        <span role="alert" className="histogram-marks-error">
          {error}
        </span>
      )}
    </form>
  );
}
