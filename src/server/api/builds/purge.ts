import { z } from 'zod';
import type { BuildStore } from '../../../core/build.js';
import type { LogStore } from '../../../core/log.js';
import { ordinal, RepoParams } from '../params.js';
import { REPO_ADMIN, route, type ApiRoute } from '../route.js';

const PurgeQuery = z.object({
  before: ordinal.describe('builds numbered below this one are deleted'),
});

/**
 * DELETE /api/repos/{owner}/{name}/builds?before=N (repository admins, as in Drone): deletes the
 * finished builds numbered below N with their stages, steps and logs. Builds still pending or
 * running are kept. Answers how many went.
 */
export function purgeBuildsRoute(deps: {
  readonly builds: Pick<BuildStore, 'purge'>;
  readonly logs: Pick<LogStore, 'purged'>;
}): ApiRoute {
  return route({
    method: 'DELETE',
    path: '/api/repos/:owner/:name/builds',
    access: REPO_ADMIN,
    tag: 'builds',
    summary: 'Deletes the finished builds numbered below `before`, with their logs',
    params: RepoParams,
    query: PurgeQuery,
    response: {
      schema: z.object({ deleted: z.number().int() }),
      description: 'how many builds were deleted',
    },
    async handler({ repo, query, request }) {
      const { builds: deleted, steps } = await deps.builds.purge(repo.id, query.before);
      await deps.logs.purged(steps);
      request.log.info({ repo: repo.slug, before: query.before, deleted }, 'builds purged');
      return { deleted };
    },
  });
}
