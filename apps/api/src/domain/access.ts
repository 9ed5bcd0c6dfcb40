// Who may read and write what. A principal is the admin (MESHBENCH_ADMIN_TOKEN), a
// project's API token, or nobody; runs belong to projects, public or private.
import type { Visibility } from '@meshbench/schema';

export type Principal =
  | { kind: 'admin' }
  | { kind: 'project'; projectId: string; tokenId: string }
  | { kind: 'anonymous' };

export const ANONYMOUS: Principal = { kind: 'anonymous' };

/** Why access is refused: 401 asks for a token, 403 says this token will not do. */
export type Refusal = { status: 401 | 403; message: string } | null;

export function writeRefusal(principal: Principal, projectId: string): Refusal {
  if (principal.kind === 'admin') return null;
  if (principal.kind === 'anonymous') {
    return { status: 401, message: 'writes need "Authorization: Bearer <token>"' };
  }
  return principal.projectId === projectId
    ? null
    : { status: 403, message: "this token is for another project than the run's" };
}

export function readRefusal(
  principal: Principal,
  projectId: string,
  visibility: Visibility,
): Refusal {
  if (visibility === 'public' || principal.kind === 'admin') return null;
  if (principal.kind === 'anonymous') {
    return {
      status: 401,
      message: 'this run is in a private project: give a token of the project',
    };
  }
  return principal.projectId === projectId
    ? null
    : { status: 403, message: "this token is for another project than the run's" };
}

/** Which private projects' runs a principal may list besides the public ones. */
export function privateProjectsVisible(principal: Principal): 'all' | string | null {
  if (principal.kind === 'admin') return 'all';
  if (principal.kind === 'project') return principal.projectId;
  return null;
}
