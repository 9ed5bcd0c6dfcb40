// Each page names itself in the browser's tab and history: "<what> · meshbench".
import type { Run } from '@meshbench/schema';
import { useEffect } from 'react';

export const APP_NAME = 'meshbench';

/** The document title for a page's own title; the app's name alone while it has none. */
export function documentTitle(title: string | undefined): string {
  const own = title?.trim();
  return own ? `${own} · ${APP_NAME}` : APP_NAME;
}

/** "istio 1.22.0": a run's mesh as the pages write it. */
export const meshLabel = (run: Pick<Run, 'mesh'>) =>
  run.mesh.version ? `${run.mesh.name} ${run.mesh.version}` : run.mesh.name;

/** Sets the tab's title while the page is shown (undefined: not known yet, the app's name). */
export function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    document.title = documentTitle(title);
  }, [title]);
}
