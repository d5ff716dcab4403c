import type { BuildStore } from '../../../core/build.js';
import type { StageStore } from '../../../core/stage.js';
import { buildJson } from '../json/build.js';
import { findBuild } from '../lookup.js';
import { BuildParams } from '../params.js';
import { REPO_READ, route, type ApiRoute } from '../route.js';
import { buildSchema } from '../schemas.js';

/** What reading one build needs. */
export interface FindBuildDeps {
  readonly builds: Pick<BuildStore, 'findNumber'>;
  readonly stages: Pick<StageStore, 'listWithSteps'>;
}

/** GET /api/repos/{owner}/{name}/builds/{number}: the build with its stages and their steps. */
export function findBuildRoute(deps: FindBuildDeps): ApiRoute {
  return route({
    method: 'GET',
    path: '/api/repos/:owner/:name/builds/:number',
    access: REPO_READ,
    tag: 'builds',
    summary: 'The build with its stages and their steps',
    params: BuildParams,
    response: { schema: buildSchema, description: 'the build with `stages`' },
    async handler({ repo, params }) {
      const build = await findBuild(deps.builds, repo.id, params.number);
      return buildJson(build, await deps.stages.listWithSteps(build.id));
    },
  });
}
