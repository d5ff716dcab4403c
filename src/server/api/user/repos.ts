import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BuildStore } from '../../../core/build.js';
import type { PermStore } from '../../../core/perm.js';
import type { RepoStore } from '../../../core/repo.js';
import type { User } from '../../../core/user.js';
import type { Authenticator } from '../../auth/authenticator.js';
import { buildJson } from '../json/build.js';
import { repoJson } from '../json/repo.js';
import { flag } from '../params.js';
import type { RepoSync, RepoWithPerm } from '../repo-sync.js';

/** What listing the caller's repositories needs; `sync` is undefined without a git provider. */
export interface UserReposDeps {
  readonly auth: Pick<Authenticator, 'require'>;
  readonly repos: Pick<RepoStore, 'listUser'>;
  readonly perms: Pick<PermStore, 'find'>;
  readonly builds: Pick<BuildStore, 'list'>;
  readonly sync: Pick<RepoSync, 'sync'> | undefined;
}

/**
 * GET /api/user/repos: the repositories the caller can see, enabled or not, with their permissions,
 * synchronized from the git provider with the caller's token first. POST does the same (Drone's
 * explicit sync). Machine accounts have no provider token: they get what svc already knows.
 * `?latest=true` adds each repository's newest build as `build`.
 */
export function userReposRoute(app: FastifyInstance, deps: UserReposDeps): void {
  const handler = async (request: FastifyRequest): Promise<Record<string, unknown>[]> => {
    const { user } = await deps.auth.require(request);
    const repos = await listed(deps, user);
    const latest = flag(request.query, 'latest');
    return Promise.all(
      repos.map(async ({ repo, perm }) => {
        const json = repoJson(repo, perm);
        if (!latest) return json;
        const [build] = await deps.builds.list(repo.id, { page: 1, perPage: 1 });
        return build === undefined ? json : { ...json, build: buildJson(build) };
      }),
    );
  };
  app.get('/api/user/repos', handler);
  app.post('/api/user/repos', handler);
}

async function listed(deps: UserReposDeps, user: User): Promise<RepoWithPerm[]> {
  if (deps.sync !== undefined && user.scmToken !== '') return deps.sync.sync(user);
  const repos = await deps.repos.listUser(user.id);
  const withPerms = await Promise.all(
    repos.map(async (repo) => ({ repo, perm: await deps.perms.find(user.id, repo.id) })),
  );
  return withPerms.flatMap(({ repo, perm }) => (perm === undefined ? [] : [{ repo, perm }]));
}
