// The frame every page sits in, and which page a path shows.
import { Link, Route, Routes } from 'react-router';
import { ComparePage } from './features/compare/pages/ComparePage.tsx';
import { HistoryPage } from './features/history/pages/HistoryPage.tsx';
import { ReportPage } from './features/reports/pages/ReportPage.tsx';
import { RunPage } from './features/runs/pages/RunPage.tsx';
import { RunsListPage } from './features/runs/pages/RunsListPage.tsx';

function NotFound() {
  return (
    <div className="state state-error" role="alert">
      <strong>No such page.</strong>
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
          <nav>
            <Link to="/">Runs</Link>
            <Link to="/history">History</Link>
            <a href="/docs">API</a>
          </nav>
        </div>
      </header>
      <main className="content">
        <Routes>
          <Route path="/" element={<RunsListPage />} />
          <Route path="/runs/:id" element={<RunPage />} />
          <Route path="/compare" element={<ComparePage />} />
          <Route path="/history" element={<HistoryPage />} />
          <Route path="/r/:slug" element={<ReportPage />} />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </main>
    </div>
  );
}
