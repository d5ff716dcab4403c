import type { FastifyInstance } from 'fastify';
import type { BuildStore } from '../../../core/build.js';
import type { StageStore } from '../../../core/stage.js';
import type { Authenticator } from '../../auth/authenticator.js';
import { buildJson } from '../json/build.js';
import { findBuild } from '../lookup.js';
import { BuildParams, parseInput } from '../params.js';
import type { RepoAccess } from '../repo-access.js';

/** What reading one build needs. */
export interface FindBuildDeps {
  readonly auth: Pick<Authenticator, 'identify'>;
  readonly access: Pick<RepoAccess, 'check'>;
  readonly builds: Pick<BuildStore, 'findNumber'>;
  readonly stages: Pick<StageStore, 'listWithSteps'>;
}

/** GET /api/repos/{owner}/{name}/builds/{number}: the build with its stages and their steps. */
export function findBuildRoute(app: FastifyInstance, deps: FindBuildDeps): void {
  app.get('/api/repos/:owner/:name/builds/:number', async (request) => {
    const { owner, name, number } = parseInput(BuildParams, request.params);
    const repo = await deps.access.check(owner, name, await deps.auth.identify(request), 'read');
    const build = await findBuild(deps.builds, repo.id, number);
    return buildJson(build, await deps.stages.listWithSteps(build.id));
  });
}
