import { z } from 'zod';
import { NotFoundError, SvcError } from '../../../core/errors.js';
import type { CacheService } from '../../caches/service.js';
import { cacheJson } from '../json/cache.js';
import { RepoParams } from '../params.js';
import { REPO_ADMIN, REPO_WRITE, route, type ApiRoute } from '../route.js';
import { cacheSchema } from '../schemas.js';

/** What the cache routes need; `caches` is undefined on a server that keeps none. */
export interface CacheRouteDeps {
  readonly caches: Pick<CacheService, 'list' | 'remove'> | undefined;
}

/** `/repos/{owner}/{name}/caches/{key}`: the key as saved (sent URL-encoded: keys hold `/` and spaces). */
const CacheParams = RepoParams.extend({ key: z.string().min(1) });

/**
 * A repository's build caches (docs/caches.md): `GET …/caches` lists them for writers (as the
 * secrets list: an archive can hold dependencies of private code, which readers of a public
 * repository must not fetch — and the list alone says what a build keeps); `DELETE …/caches` and
 * `DELETE …/caches/{key}` (every scope's entry of that key) are for the repository's admins, as
 * the other deletions of stored data (build purges, logs).
 */
export function cacheRoutes(deps: CacheRouteDeps): ApiRoute[] {
  const service = (): Pick<CacheService, 'list' | 'remove'> => {
    if (deps.caches === undefined) throw new SvcError('NOT_FOUND', 'this server keeps no caches');
    return deps.caches;
  };
  const tag = 'caches';
  return [
    route({
      method: 'GET',
      path: '/api/repos/:owner/:name/caches',
      access: REPO_WRITE,
      tag,
      summary: 'The repository’s build caches, newest first',
      params: RepoParams,
      response: { schema: z.array(cacheSchema), description: 'the caches' },
      handler: async ({ repo }) => (await service().list(repo)).map(cacheJson),
    }),
    route({
      method: 'DELETE',
      path: '/api/repos/:owner/:name/caches',
      access: REPO_ADMIN,
      tag,
      summary: 'Removes all of the repository’s build caches',
      params: RepoParams,
      response: { status: 204, description: 'removed (also when there were none)' },
      async handler({ repo, reply, principal, request }) {
        const removed = await service().remove(repo);
        request.log.info({ repo: repo.slug, removed, by: principal.user.login }, 'caches removed');
        return reply.code(204).send();
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/repos/:owner/:name/caches/:key',
      access: REPO_ADMIN,
      tag,
      summary: 'Removes the repository’s build caches of one key, in every scope',
      params: CacheParams,
      response: { status: 204, description: 'removed' },
      async handler({ repo, params, reply, principal, request }) {
        const removed = await service().remove(repo, params.key);
        if (removed === 0) throw new NotFoundError(`cache ${JSON.stringify(params.key)}`);
        request.log.info(
          { repo: repo.slug, key: params.key, removed, by: principal.user.login },
          'cache removed',
        );
        return reply.code(204).send();
      },
    }),
  ];
}
