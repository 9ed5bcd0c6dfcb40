// "Share": freezes what the page shows for these runs into a report, under a title the person
// may set, and hands over its link to copy. Anyone with the link can read the report, and
// nothing else. The form (and its code) loads when the person asks for it.
import { lazy, Suspense, useState } from 'react';
import './share.css';

const ShareForm = lazy(() => import('./ShareForm.tsx').then((m) => ({ default: m.ShareForm })));

export function ShareButton({ runIds }: { runIds: string[] }) {
  const [open, setOpen] = useState(false);
  if (open) {
    return (
      <Suspense fallback={<span className="share">Loading…</span>}>
        <ShareForm runIds={runIds} onCancel={() => setOpen(false)} />
      </Suspense>
    );
  }
  return (
    <div className="share" data-testid="share">
      <button
        type="button"
        className="button"
        data-testid="share-button"
        aria-expanded="false"
        onClick={() => setOpen(true)}
        title="Freeze these numbers into a report anyone with the link can open"
      >
        Share…
      </button>
    </div>
  );
}
