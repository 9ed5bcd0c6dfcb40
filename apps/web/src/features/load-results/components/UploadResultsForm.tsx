// "Upload results": a load generator's result file posted to the run as it is; the API tells
// the format apart (or is told), and says how many points it stored and what it left out.
import { resultFormats } from '@meshbench/schema';
import { type FormEvent, useState } from 'react';
import { formatCount } from '../../../charts/prepare/format.ts';
import { ForgetTokenButton } from '../../../ui/ForgetTokenButton.tsx';
import { readWriteToken, saveWriteToken, userError } from '../../../ui/write-token.ts';
import { useUploadResults } from '../hooks/use-load-results.ts';

const FORMAT_NAMES: Record<string, string> = {
  auto: 'auto-detect',
  fortio: 'Fortio JSON',
  nighthawk: 'Nighthawk JSON',
  k6: 'k6 summary',
  'k6-ndjson': 'k6 --out json stream',
  wrk2: 'wrk2 report',
  smp: 'SMP result',
  'istio-csv': "Istio's perf CSV",
  hey: 'hey -o csv',
  jmeter: 'JMeter JTL CSV',
  'hdr-log': 'HdrHistogram interval log',
  locust: 'Locust CSV (_stats.csv...) or --json',
  wrk: 'wrk 4 report',
  vegeta: 'Vegeta results (binary or JSON)',
  gatling: 'Gatling simulation.log (text or binary)',
  oha: 'oha JSON summary',
  ghz: 'ghz JSON report',
};

export function UploadResultsForm({ runId }: { runId: string }) {
  const upload = useUploadResults(runId);
  const [token, setToken] = useState(readWriteToken);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const file = form.get('file');
    if (!(file instanceof File) || file.size === 0) return;
    // Kept only once the server has taken it: a refused token is not saved.
    upload.mutate(
      { file, format: String(form.get('format') ?? 'auto'), token },
      { onSuccess: () => saveWriteToken(token) },
    );
  };
  return (
    <form
      className="panel upload-form"
      onSubmit={submit}
      aria-label="Add results"
      data-testid="upload-form"
    >
      <h3>Add results</h3>
      <p className="panel-sub">
        A result file as the load generator wrote it: Fortio, Nighthawk, k6 (summary or --out json),
        wrk, wrk2, SMP, Istio&apos;s perf CSV, hey -o csv, a JMeter JTL CSV, Vegeta&apos;s JSON or a
        ghz JSON report results.
      </p>
      <div className="upload-fields">
        <label>
          <span>File</span>
          <input type="file" name="file" required data-testid="upload-file" />
        </label>
        <label>
          <span>Format</span>
          <select name="format" defaultValue="auto" data-testid="upload-format">
            {['auto', ...resultFormats].map((f) => (
              <option key={f} value={f}>
                {FORMAT_NAMES[f] ?? f}
              </option>
            ))}
          </select>
        </label>
        <label title="The project's API token, or the one the server printed on first start; kept in this browser">
          <span>Write token</span>
          <input
            type="password"
            value={token}
            autoComplete="off"
            placeholder="mb_…"
            data-testid="upload-token"
            onChange={(e) => setToken(e.currentTarget.value.trim())}
          />
        </label>
        <button
          type="submit"
          className="button button-primary"
          disabled={upload.isPending}
          data-testid="upload-submit"
        >
          {upload.isPending ? 'Uploading…' : 'Upload'}
        </button>
        <ForgetTokenButton onForget={() => setToken('')} />
      </div>
      <output className="upload-result" data-testid="upload-result" aria-live="polite">
        {upload.isSuccess && (
          <span className="upload-ok">
            {upload.data.duplicate
              ? `Already stored: this file was uploaded to the run before (${formatCount(upload.data.imported)} point${upload.data.imported === 1 ? '' : 's'}, ${upload.data.format}); nothing stored again`
              : `Imported ${formatCount(upload.data.imported)} point${upload.data.imported === 1 ? '' : 's'} (${upload.data.format})`}
            {upload.data.unmapped.length > 0
              ? `; not mapped: ${upload.data.unmapped.join(', ')}`
              : '; every field mapped'}
          </span>
        )}
        {upload.isSuccess && upload.data.notes.length > 0 && (
          <ul className="upload-notes" data-testid="upload-notes">
            {upload.data.notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        )}
        {upload.isError && (
          <span className="upload-error" role="alert">
            {userError(upload.error, 'upload the file')}
          </span>
        )}
      </output>
    </form>
  );
}
