import type { FastifyInstance } from 'fastify';
import type { BuildStore } from '../../../core/build.js';
import type { Authenticator } from '../../auth/authenticator.js';
import { buildJson } from '../json/build.js';
import { pageOf, parseInput, RepoParams } from '../params.js';
import type { RepoAccess } from '../repo-access.js';

/** What listing builds needs. */
export interface ListBuildsDeps {
  readonly auth: Pick<Authenticator, 'identify'>;
  readonly access: Pick<RepoAccess, 'check'>;
  readonly builds: Pick<BuildStore, 'list'>;
}

/** GET /api/repos/{owner}/{name}/builds?page=&per_page=: the repository's builds, newest first, without stages. */
export function listBuildsRoute(app: FastifyInstance, deps: ListBuildsDeps): void {
  app.get('/api/repos/:owner/:name/builds', async (request) => {
    const { owner, name } = parseInput(RepoParams, request.params);
    const page = pageOf(request.query);
    const repo = await deps.access.check(owner, name, await deps.auth.identify(request), 'read');
    const builds = await deps.builds.list(repo.id, page);
    return builds.map((build) => buildJson(build));
  });
}
