// What this replica answered on one upload path (POST /runs/{id}/events, /runs/{id}/results):
// stored, retried under a known Idempotency-Key, or rejected with a 4xx, and the last
// rejection's message, so that a runner whose uploads fail can be seen failing on the
// Ingest page and in /metrics. The service that stores an upload counts it stored or
// retried; the upload's route counts it rejected, from the error it fails with. A
// rejection's message can name another project's run or data, so the last one is also kept
// per project, and a caller is shown only its own project's (the admin: the replica's last).
import type { UploadCounters } from '@meshbench/schema';
import type { Principal } from '../domain/access.ts';

type Rejection = UploadCounters['lastRejection'];

/** Projects whose last rejection a replica remembers. */
const PROJECTS_KEPT = 1000;

export class UploadCounts {
  stored = 0;
  items = 0;
  duplicates = 0;
  rejected = 0;
  lastRejection: Rejection = null;
  /** The last rejection of each project's token (a bounded map, oldest dropped first). */
  private readonly lastRejectionByProject = new Map<string, Rejection>();

  /** An upload stored, with the events or load results it held. */
  countStored(items: number): void {
    this.stored++;
    this.items += items;
  }

  /** An upload sent again under an Idempotency-Key already stored: nothing stored again. */
  countDuplicate(): void {
    this.duplicates++;
  }

  /** An upload answered with a 4xx; `by` is who sent it. */
  countRejected(status: number, message: string, by: Principal | undefined): void {
    this.rejected++;
    const rejection = { at: new Date().toISOString(), status, message };
    this.lastRejection = rejection;
    if (by?.kind === 'project') {
      const byProject = this.lastRejectionByProject;
      byProject.delete(by.projectId);
      byProject.set(by.projectId, rejection);
      if (byProject.size > PROJECTS_KEPT) {
        byProject.delete(byProject.keys().next().value as string);
      }
    }
  }

  /** The counters as `principal` may see them: the last rejection only if it is its own. */
  seenBy(principal: Principal): UploadCounters {
    const lastRejection =
      principal.kind === 'admin'
        ? this.lastRejection
        : principal.kind === 'project'
          ? (this.lastRejectionByProject.get(principal.projectId) ?? null)
          : null;
    const { stored, items, duplicates, rejected } = this;
    return { stored, items, duplicates, rejected, lastRejection };
  }
}

/** The counts of both upload paths. */
export const uploadCounts = () => ({ events: new UploadCounts(), results: new UploadCounts() });
export type Uploads = ReturnType<typeof uploadCounts>;
