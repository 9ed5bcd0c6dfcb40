// Boots the single-page app: one query client, the router, the pages.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './App.tsx';
import { ApiRequestError } from './api/client.ts';
import { prefetchRoute } from './route-prefetch.ts';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A finished run's numbers do not change; a 4xx will not go away by asking again.
      staleTime: 60_000,
      refetchOnWindowFocus: false,
      retry: (failures, error) =>
        !(error instanceof ApiRequestError && error.status >= 400 && error.status < 500) &&
        failures < 2,
    },
  },
});

prefetchRoute(queryClient, window.location.pathname, window.location.search);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');

createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <App />
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
// Not needed for the first paint: its own chunk, outside the first-load budget.
void import('./ui/scroll-regions.ts').then((m) => m.watchScrollRegions(root));
