// Slots for uploads in progress, shared fairly between projects: past the replica's limit an
// upload is refused with 503 + Retry-After (load shedding), and while another project wants
// slots too one project may hold no more than its share, so one project's uploads (or one
// client's) cannot keep every slot and lock the other projects out. A project alone may
// take every slot.
import { AppError } from '../errors.ts';

/** How long a project that asked for a slot counts as wanting slots (fair shares). */
export const FAIR_SHARE_MEMORY_MS = 10_000;

/** Seconds a client is told to wait when every slot of the replica is taken. */
export const RETRY_AFTER_OVERLOADED_S = 1;

export function fairSlots(opts: {
  /** Slots of the replica; past them uploads are refused. */
  max: number;
  /** A project's share while another project wants slots too. */
  perProject: number;
  /** What an upload is, plural ("event batches"), for the refusal's message. */
  what: string;
  /** One upload, for the refusal's advice ("the batch"). */
  one: string;
  /** The settings named in refusals. */
  maxSetting: string;
  perProjectSetting: string;
}) {
  const maxPerProject = Math.min(opts.max, opts.perProject);
  const counters = { overloaded: 0 };
  let inFlight = 0;
  /** Slots taken, by project. */
  const byProject = new Map<string, number>();
  /** When each project last asked for a slot (taken or refused). */
  const asked = new Map<string, number>();

  /** Whether a project other than `projectId` asked for a slot lately or holds one. */
  function othersWant(projectId: string, now: number): boolean {
    let others = false;
    for (const [other, at] of asked) {
      if (now - at > FAIR_SHARE_MEMORY_MS && !byProject.has(other)) asked.delete(other);
      else if (other !== projectId) others = true;
    }
    return others;
  }

  const refuse = (message: string) => {
    counters.overloaded++;
    const error = new AppError(
      503,
      'overloaded',
      `${message}; send ${opts.one} again after Retry-After`,
    );
    error.retryAfterS = RETRY_AFTER_OVERLOADED_S;
    return error;
  };

  return {
    counters,
    /** Takes a slot for an upload of `projectId`, or throws the 503; gives the release. */
    admit(projectId: string): () => void {
      const now = Date.now();
      const contended = othersWant(projectId, now);
      asked.set(projectId, now);
      if (inFlight >= opts.max) {
        throw refuse(`this server already works on ${opts.max} ${opts.what} (${opts.maxSetting})`);
      }
      const mine = byProject.get(projectId) ?? 0;
      if (mine >= maxPerProject && contended) {
        throw refuse(
          `this server already works on ${mine} ${opts.what} of this run's project, its share while other projects send too (${opts.perProjectSetting})`,
        );
      }
      inFlight++;
      byProject.set(projectId, mine + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inFlight--;
        const left = (byProject.get(projectId) ?? 1) - 1;
        if (left > 0) byProject.set(projectId, left);
        else byProject.delete(projectId);
      };
    },
  };
}
