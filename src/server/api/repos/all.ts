import { z } from 'zod';
import type { RepoStore } from '../../../core/repo.js';
import { repoJson } from '../json/repo.js';
import { PageQuery } from '../params.js';
import { ADMIN, route, type ApiRoute } from '../route.js';
import { repoSchema } from '../schemas.js';

/** What listing every repository needs. */
export interface AllReposDeps {
  readonly repos: Pick<RepoStore, 'list'>;
}

/**
 * GET /api/repos?page=&per_page=: every repository svc knows, enabled or not, by slug, a page at a
 * time (svc administrators only, as in Drone).
 */
export function allReposRoute(deps: AllReposDeps): ApiRoute {
  return route({
    method: 'GET',
    path: '/api/repos',
    access: ADMIN,
    tag: 'repos',
    summary: 'Every repository svc knows, by slug (svc administrators)',
    query: PageQuery,
    response: { schema: z.array(repoSchema), description: 'one page of repositories' },
    async handler({ query }) {
      const all = await deps.repos.list();
      const start = (query.page - 1) * query.per_page;
      return all.slice(start, start + query.per_page).map((repo) => repoJson(repo));
    },
  });
}
