// The frame every page sits in, and which page a path shows. Each page's code (and the
// charting library) loads with the page, so the frame and the page's first reads start
// before it has been parsed.
import { lazy, Suspense } from 'react';
import { Link, Route, Routes } from 'react-router';
import { useDocumentTitle } from './ui/document-title.ts';
import { Loading } from './ui/QueryState.tsx';

const AlertsPage = lazy(() =>
  import('./features/history/pages/AlertsPage.tsx').then((m) => ({ default: m.AlertsPage })),
);
const ComparePage = lazy(() =>
  import('./features/compare/pages/ComparePage.tsx').then((m) => ({ default: m.ComparePage })),
);
const HistoryPage = lazy(() =>
  import('./features/history/pages/HistoryPage.tsx').then((m) => ({ default: m.HistoryPage })),
);
const IngestPage = lazy(() =>
  import('./features/ingest/pages/IngestPage.tsx').then((m) => ({ default: m.IngestPage })),
);
const ReportPage = lazy(() =>
  import('./features/reports/pages/ReportPage.tsx').then((m) => ({ default: m.ReportPage })),
);
const RunPage = lazy(() =>
  import('./features/runs/pages/RunPage.tsx').then((m) => ({ default: m.RunPage })),
);
const RunsListPage = lazy(() =>
  import('./features/runs/pages/RunsListPage.tsx').then((m) => ({ default: m.RunsListPage })),
);

function NotFound() {
  useDocumentTitle('No such page');
  return (
    <div className="state state-error" role="alert">
      <h1>No such page</h1>
      <Link to="/">Back to the runs</Link>
    </div>
  );
}

export function App() {
  return (
    <div className="app">
      <header className="topbar">
        <div className="topbar-inner">
          <Link to="/" className="brand">
            <span className="brand-mark" aria-hidden="true" />
            meshbench
          </Link>
          <nav aria-label="Main">
            <Link to="/">Runs</Link>
            <Link to="/history">History</Link>
            <Link to="/alerts">Alerts</Link>
            <Link to="/ingest">Ingest</Link>
            <a href="/docs">API</a>
          </nav>
        </div>
      </header>
      <main className="content">
        <Suspense fallback={<Loading what="page" />}>
          <Routes>
            <Route path="/" element={<RunsListPage />} />
            <Route path="/runs/:id" element={<RunPage />} />
            <Route path="/compare" element={<ComparePage />} />
            <Route path="/history" element={<HistoryPage />} />
            <Route path="/alerts" element={<AlertsPage />} />
            <Route path="/ingest" element={<IngestPage />} />
            <Route path="/r/:slug" element={<ReportPage />} />
            <Route path="*" element={<NotFound />} />
          </Routes>
        </Suspense>
      </main>
    </div>
  );
}
