import type { FastifyInstance } from 'fastify';
import type { Authenticator } from '../../auth/authenticator.js';
import { repoJson } from '../json/repo.js';
import { parseInput, RepoParams } from '../params.js';
import type { RepoAccess } from '../repo-access.js';

/** What reading a repository needs. */
export interface FindRepoDeps {
  readonly auth: Pick<Authenticator, 'identify'>;
  readonly access: Pick<RepoAccess, 'check' | 'rights'>;
}

/** GET /api/repos/{owner}/{name}: the repository, with the caller's permissions when logged in. */
export function findRepoRoute(app: FastifyInstance, deps: FindRepoDeps): void {
  app.get('/api/repos/:owner/:name', async (request) => {
    const { owner, name } = parseInput(RepoParams, request.params);
    const principal = await deps.auth.identify(request);
    const repo = await deps.access.check(owner, name, principal, 'read');
    return repoJson(repo, principal === undefined ? undefined : await deps.access.rights(repo, principal));
  });
}
