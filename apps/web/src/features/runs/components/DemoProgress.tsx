// The runs list's line while the demo loads (demo-progress.ts); polled every 2 s until done.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { demoProgressText, fetchDemoProgress } from './demo-progress.ts';

export function DemoProgress() {
  const progress = useQuery({
    queryKey: ['demo-progress'],
    queryFn: ({ signal }) => fetchDemoProgress(signal),
    refetchInterval: (q) => (q.state.data?.state === 'loading' ? 2000 : false),
  });
  const client = useQueryClient();
  const loaded = progress.data?.loaded;
  // Each new run: the list (and its filters) read again, so the page fills in as they arrive.
  useEffect(() => {
    if (loaded === undefined || loaded === 0) return;
    void client.invalidateQueries({ queryKey: ['run-list'] });
    void client.invalidateQueries({ queryKey: ['run-facets'] });
  }, [loaded, client]);
  const text = demoProgressText(progress.data);
  if (!text) return null;
  return (
    <p className="state demo-progress" aria-live="polite" data-testid="demo-progress">
      {text}
    </p>
  );
}
