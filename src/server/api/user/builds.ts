import { z } from 'zod';
import type { BuildStore } from '../../../core/build.js';
import type { Repo, RepoStore } from '../../../core/repo.js';
import { buildJson } from '../json/build.js';
import type { RepoAccess } from '../repo-access.js';
import { repoJson } from '../json/repo.js';
import { route, USER, type ApiRoute } from '../route.js';
import { repoSchema } from '../schemas.js';

/** What the caller's recent builds need. */
export interface UserBuildsDeps {
  readonly builds: Pick<BuildStore, 'listRecent'>;
  readonly repos: Pick<RepoStore, 'find'>;
  /** The caller's rights, refreshed as on every other request once older than the refresh window. */
  readonly access: Pick<RepoAccess, 'rights'>;
}

/** As many as Drone's activity feed shows. */
const RECENT = 25;

/**
 * GET /api/user/builds and GET /api/user/builds/recent (Drone serves both the same): the caller's
 * recent activity — the newest builds of the repositories the caller has a permission on, newest
 * first, at most 25, each as its repository with the build as `build` (a repository appears once
 * per build of it in the list). The stored permissions pick the builds; a private repository's are
 * shown only while the caller may still read it, asked as every request asks (stale rights are
 * refreshed from the provider, and end when it refuses).
 */
export function userBuildsRoutes(deps: UserBuildsDeps): ApiRoute[] {
  const recent = (path: string, summary: string): ApiRoute =>
    route({
      method: 'GET',
      path,
      access: USER,
      tag: 'user',
      summary,
      response: {
        schema: z.array(repoSchema),
        description: 'repositories, each with one of its builds as `build`, newest build first',
      },
      async handler({ principal }) {
        const builds = await deps.builds.listRecent(principal.user.id, RECENT);
        const repos = new Map<number, Repo | undefined>();
        for (const { repoId } of builds) {
          if (repos.has(repoId)) continue;
          const repo = await deps.repos.find(repoId);
          const open = repo !== undefined && !repo.private && repo.visibility === 'public';
          const readable = open || (repo !== undefined && (await deps.access.rights(repo, principal)).read);
          repos.set(repoId, readable ? repo : undefined);
        }
        return builds.flatMap((build) => {
          const repo = repos.get(build.repoId);
          return repo === undefined ? [] : [{ ...repoJson(repo), build: buildJson(build) }];
        });
      },
    });
  return [
    recent('/api/user/builds', 'The newest builds of the caller’s repositories, with their repositories'),
    recent('/api/user/builds/recent', 'The same as GET /api/user/builds (Drone’s second path)'),
  ];
}
