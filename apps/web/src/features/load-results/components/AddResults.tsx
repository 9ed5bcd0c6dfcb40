// "Add results": the explicit action that opens the upload form on a run page (the form and
// its code load only then), so that reading a run never shows a write form.
import { lazy, Suspense, useState } from 'react';
import { Loading } from '../../../ui/QueryState.tsx';

const UploadResultsForm = lazy(() =>
  import('./UploadResultsForm.tsx').then((m) => ({ default: m.UploadResultsForm })),
);

export function AddResults({ runId }: { runId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="add-results no-print">
      <button
        type="button"
        className="button"
        aria-expanded={open}
        aria-controls="add-results-form"
        data-testid="add-results"
        onClick={() => setOpen((o) => !o)}
      >
        {open ? 'Close' : 'Add results…'}
      </button>
      {open && (
        <div id="add-results-form">
          <Suspense fallback={<Loading what="the upload form" />}>
            <UploadResultsForm runId={runId} />
          </Suspense>
        </div>
      )}
    </div>
  );
}
