import { z } from 'zod';
import type { Build, BuildStore } from '../../../core/build.js';
import type { Repo, RepoStore } from '../../../core/repo.js';
import { buildJson } from '../json/build.js';
import { repoJson } from '../json/repo.js';
import { ADMIN, route, type ApiRoute } from '../route.js';
import { repoSchema } from '../schemas.js';

/** What listing incomplete builds needs. */
export interface IncompleteBuildsDeps {
  readonly builds: Pick<BuildStore, 'listIncomplete'>;
  readonly repos: Pick<RepoStore, 'find'>;
}

/**
 * GET /api/builds/incomplete (svc administrators): Drone's shape — one entry per build that is not
 * done (pending, waiting, blocked or running), oldest first, as its repository with the build in
 * `build`; a repository with two such builds appears twice.
 */
export function incompleteBuildsRoute(deps: IncompleteBuildsDeps): ApiRoute {
  return route({
    method: 'GET',
    path: '/api/builds/incomplete',
    access: ADMIN,
    tag: 'builds',
    summary: 'The builds that are not done, each with its repository',
    response: { schema: z.array(repoSchema), description: 'repositories, each with one incomplete `build`' },
    async handler() {
      const builds = await deps.builds.listIncomplete();
      const repos = new Map<number, Repo | undefined>();
      for (const id of new Set(builds.map((b) => b.repoId))) repos.set(id, await deps.repos.find(id));
      return builds.flatMap((build: Build) => {
        const repo = repos.get(build.repoId);
        // A build whose repository was deleted meanwhile is left out.
        return repo === undefined ? [] : [{ ...repoJson(repo), build: buildJson(build) }];
      });
    },
  });
}
