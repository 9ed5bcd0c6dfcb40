// Projects and tokens: who may write where. Tokens are random, shown once, kept as hashes.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  type CreatedToken,
  type CreateProjectBody,
  DEFAULT_DETECTION,
  type DetectionSettings,
  type Project,
  type ProjectDetection,
  type PutDetectionBody,
  type TokenInfo,
  type Visibility,
} from '@meshbench/schema';
import { ANONYMOUS, type Principal, readRefusal, writeRefusal } from '../domain/access.ts';
import { AppError, notFound } from '../errors.ts';
import {
  DEFAULT_PROJECT_ID,
  type ProjectRow,
  type ProjectsRepository,
  type TokenRow,
} from '../repositories/projects.repository.ts';

const hash = (token: string) => createHash('sha256').update(token).digest('hex');
const toProject = (p: ProjectRow): Project => ({
  id: p.id,
  name: p.name,
  visibility: p.visibility as Visibility,
  createdAt: p.createdAt.toISOString(),
});
const toTokenInfo = (t: TokenRow): TokenInfo => ({
  id: t.id,
  projectId: t.projectId,
  name: t.name,
  prefix: t.prefix,
  createdAt: t.createdAt.toISOString(),
  lastUsedAt: t.lastUsedAt ? t.lastUsedAt.toISOString() : null,
  revokedAt: t.revokedAt ? t.revokedAt.toISOString() : null,
});

export function refuse(refusal: ReturnType<typeof writeRefusal>): void {
  if (refusal)
    throw new AppError(
      refusal.status,
      refusal.status === 401 ? 'unauthorized' : 'forbidden',
      refusal.message,
    );
}

/** What a project keeps of its detection settings: the fields it set, over the defaults. */
function detectionOfRow(p: ProjectRow): ProjectDetection {
  const set: PutDetectionBody = {};
  const kept = p.detection ?? {};
  for (const k of ['maxPValue', 'minMagnitude', 'minSegment'] as const)
    if (typeof kept[k] === 'number') set[k] = kept[k];
  return {
    projectId: p.id,
    detection: { ...DEFAULT_DETECTION, ...set },
    set,
    defaults: { ...DEFAULT_DETECTION },
  };
}

/** A project's detection settings by id: those it set over the defaults. */
export type DetectionOf = (
  projectId: string,
) => Promise<{ detection: DetectionSettings; set: PutDetectionBody }>;

export function projectsService(deps: {
  projects: ProjectsRepository;
  adminToken: string | undefined;
}) {
  const { projects, adminToken } = deps;

  async function projectOf(ref: string): Promise<ProjectRow> {
    const project = await projects.find(ref);
    if (!project) throw notFound(`project "${ref}"`);
    return project;
  }

  async function issueToken(projectId: string, name: string): Promise<CreatedToken> {
    const token = `mb_${randomBytes(32).toString('base64url')}`;
    const row = await projects.insertToken({
      id: randomUUID(),
      projectId,
      name,
      tokenHash: hash(token),
      prefix: token.slice(0, 10),
    });
    return { ...toTokenInfo(row), token };
  }

  return {
    /** The principal a bearer token stands for; a token that is not valid is refused. */
    async authenticate(token: string | undefined): Promise<Principal> {
      if (token === undefined) return ANONYMOUS;
      if (adminToken && token.length === adminToken.length && hash(token) === hash(adminToken))
        return { kind: 'admin' };
      const row = await projects.useToken(hash(token));
      if (!row)
        throw new AppError(401, 'unauthorized', 'the token is not valid (unknown or revoked)');
      return { kind: 'project', projectId: row.projectId, tokenId: row.id };
    },

    async create(body: CreateProjectBody, principal: Principal): Promise<Project> {
      if (principal.kind !== 'admin')
        throw new AppError(
          principal.kind === 'anonymous' ? 401 : 403,
          'forbidden',
          'creating projects needs the admin token',
        );
      const created = await projects.insert({
        id: randomUUID(),
        name: body.name,
        visibility: body.visibility,
      });
      if (!created)
        throw new AppError(409, 'project_exists', `a project named "${body.name}" exists`, {
          field: 'name',
        });
      return toProject(created);
    },

    async list(principal: Principal): Promise<Project[]> {
      const all = await projects.list();
      return all
        .filter((p) => readRefusal(principal, p.id, p.visibility as Visibility) === null)
        .map(toProject);
    },

    /** The project a new run goes to: the one named, else the token's own, else the default. */
    async projectForNewRun(ref: string | undefined, principal: Principal): Promise<string> {
      const projectId =
        ref !== undefined
          ? (await projectOf(ref)).id
          : principal.kind === 'project'
            ? principal.projectId
            : DEFAULT_PROJECT_ID;
      refuse(writeRefusal(principal, projectId));
      return projectId;
    },

    /** The project by id or name, for access checks; undefined when there is none. */
    find: (ref: string) => projects.find(ref),

    async visibility(projectId: string): Promise<Visibility> {
      return (await projectOf(projectId)).visibility as Visibility;
    },

    /** The settings change points are detected with in the project's runs (history, alerts). */
    async detection(projectId: string): Promise<ProjectDetection> {
      const p = await projects.find(projectId);
      if (!p) return detectionOfRow({ id: projectId, detection: null } as ProjectRow);
      return detectionOfRow(p);
    },

    /** GET /projects/{id}/detection: whoever may read the project's runs. */
    async readDetection(projectRef: string, principal: Principal): Promise<ProjectDetection> {
      const project = await projectOf(projectRef);
      if (readRefusal(principal, project.id, project.visibility as Visibility))
        throw notFound(`project "${projectRef}"`);
      return detectionOfRow(project);
    },

    /** PUT /projects/{id}/detection: the admin or a token of the project; {} restores the defaults. */
    async setDetection(
      projectRef: string,
      body: PutDetectionBody,
      principal: Principal,
    ): Promise<ProjectDetection> {
      const project = await projectOf(projectRef);
      refuse(writeRefusal(principal, project.id));
      const detection = Object.keys(body).length > 0 ? { ...body } : null;
      await projects.setDetection(project.id, detection as Record<string, number> | null);
      return detectionOfRow({ ...project, detection });
    },

    async createToken(
      projectRef: string,
      name: string,
      principal: Principal,
    ): Promise<CreatedToken> {
      const project = await projectOf(projectRef);
      refuse(writeRefusal(principal, project.id));
      return issueToken(project.id, name);
    },

    async tokens(projectRef: string, principal: Principal): Promise<TokenInfo[]> {
      const project = await projectOf(projectRef);
      refuse(writeRefusal(principal, project.id));
      return (await projects.tokens(project.id)).map(toTokenInfo);
    },

    async revokeToken(id: string, principal: Principal): Promise<void> {
      const token = await projects.tokenById(id);
      if (!token) throw notFound(`token "${id}"`);
      refuse(writeRefusal(principal, token.projectId));
      if (!(await projects.revokeToken(id))) throw notFound(`live token "${id}"`);
    },

    /** A token's name, for logs of who did what (undefined for an unknown id). */
    tokenName: async (id: string): Promise<string | undefined> =>
      (await projects.tokenById(id))?.name,

    /** A token of the default project for the server's own posting (the demo). */
    serverToken: (name: string) => issueToken(DEFAULT_PROJECT_ID, name),
    revokeServerToken: async (id: string) => {
      await projects.revokeToken(id);
    },

    /**
     * First start of the embedded database: a token for the default project, so a person
     * trying meshbench on one machine can write at once. Undefined when tokens exist.
     */
    async localToken(): Promise<CreatedToken | undefined> {
      if ((await projects.countTokens()) > 0) return undefined;
      return issueToken(DEFAULT_PROJECT_ID, 'local');
    },
  };
}
export type ProjectsService = ReturnType<typeof projectsService>;
