import { repoJson } from '../json/repo.js';
import { RepoParams } from '../params.js';
import type { RepoAccess } from '../repo-access.js';
import { REPO_READ, route, type ApiRoute } from '../route.js';
import { repoSchema } from '../schemas.js';

/** GET /api/repos/{owner}/{name}: the repository, with the caller's permissions when logged in. */
export function findRepoRoute(deps: { readonly access: Pick<RepoAccess, 'rights'> }): ApiRoute {
  return route({
    method: 'GET',
    path: '/api/repos/:owner/:name',
    access: REPO_READ,
    tag: 'repos',
    summary: 'The repository, with the caller’s permissions',
    params: RepoParams,
    response: { schema: repoSchema, description: 'the repository' },
    async handler({ repo, principal }) {
      return repoJson(repo, principal === undefined ? undefined : await deps.access.rights(repo, principal));
    },
  });
}
