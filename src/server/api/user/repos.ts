import { z } from 'zod';
import type { Build, BuildStore } from '../../../core/build.js';
import type { RepoStore, RepoWithPerm } from '../../../core/repo.js';
import type { User } from '../../../core/user.js';
import { buildJson } from '../json/build.js';
import { repoJson } from '../json/repo.js';
import { flagQuery } from '../params.js';
import type { RepoSync } from '../repo-sync.js';
import { route, USER, type ApiRoute, type HttpMethod } from '../route.js';
import { repoSchema } from '../schemas.js';

/** What listing the caller's repositories needs; `sync` is undefined without a git provider. */
export interface UserReposDeps {
  readonly repos: Pick<RepoStore, 'listUser'>;
  readonly builds: Pick<BuildStore, 'newestOf'>;
  readonly sync: Pick<RepoSync, 'sync'> | undefined;
}

const ReposQuery = z.object({
  latest: flagQuery.describe('add each repository’s newest build as `build`'),
  async: flagQuery.describe('accepted for Drone’s clients; svc always syncs before answering'),
});

/**
 * GET /api/user/repos: the repositories the caller can see, enabled or not, with their permissions,
 * synchronized from the git provider with the caller's token first. POST does the same (Drone's
 * explicit sync). Machine accounts have no provider token: they get what svc already knows.
 * `?latest=true` adds each repository's newest build as `build`.
 */
export function userReposRoutes(deps: UserReposDeps): ApiRoute[] {
  const list = (method: HttpMethod, summary: string): ApiRoute =>
    route({
      method,
      path: '/api/user/repos',
      access: USER,
      tag: 'user',
      summary,
      query: ReposQuery,
      response: { schema: z.array(repoSchema), description: 'the repositories, by slug' },
      async handler({ principal, query }) {
        const repos = await listed(deps, principal.user);
        const newest = query.latest
          ? await deps.builds.newestOf(repos.map(({ repo }) => repo.id))
          : new Map<number, Build>();
        return repos.map(({ repo, perm }) => {
          const json = repoJson(repo, perm);
          const build = newest.get(repo.id);
          return build === undefined ? json : { ...json, build: buildJson(build) };
        });
      },
    });
  return [
    list('GET', 'The repositories the caller can see, synchronized from the git provider'),
    list('POST', 'Synchronizes the caller’s repositories from the git provider (Drone’s explicit sync)'),
  ];
}

async function listed(deps: UserReposDeps, user: User): Promise<RepoWithPerm[]> {
  if (deps.sync !== undefined && user.scmToken !== '') return deps.sync.sync(user);
  return deps.repos.listUser(user.id);
}
