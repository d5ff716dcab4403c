import { z } from 'zod';
import type { BuildStore } from '../../../core/build.js';
import { buildJson } from '../json/build.js';
import { pageOf, PageQuery, RepoParams } from '../params.js';
import { REPO_READ, route, type ApiRoute } from '../route.js';
import { buildSchema } from '../schemas.js';

/** What listing builds needs. */
export interface ListBuildsDeps {
  readonly builds: Pick<BuildStore, 'list'>;
}

/** GET /api/repos/{owner}/{name}/builds?branch=&page=&per_page=: the repository's builds, newest first,
 * without stages; `branch` keeps those of one branch, as in Drone. */
export function listBuildsRoute(deps: ListBuildsDeps): ApiRoute {
  return route({
    method: 'GET',
    path: '/api/repos/:owner/:name/builds',
    access: REPO_READ,
    tag: 'builds',
    summary: 'The repository’s builds, newest first, without stages',
    params: RepoParams,
    query: PageQuery.extend({
      branch: z
        .string()
        .min(1)
        .optional()
        .describe('only the builds of this branch (ref refs/heads/<branch>)'),
    }),
    response: { schema: z.array(buildSchema), description: 'a page of builds' },
    async handler({ repo, query }) {
      const filter = query.branch === undefined ? {} : { ref: `refs/heads/${query.branch}` };
      const builds = await deps.builds.list(repo.id, pageOf(query), filter);
      return builds.map((build) => buildJson(build));
    },
  });
}
