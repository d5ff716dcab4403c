import type { BuildStore } from '../../../core/build.js';
import type { StageStore } from '../../../core/stage.js';
import type { PendingReason } from '../../queue/pending-reason.js';
import type { PendingReasons } from '../../queue/pending-reasons.js';
import { buildJson, stageJson } from '../json/build.js';
import { findBuild } from '../lookup.js';
import { BuildParams } from '../params.js';
import { REPO_READ, route, type ApiRoute } from '../route.js';
import { buildSchema } from '../schemas.js';

/** What reading one build needs. */
export interface FindBuildDeps {
  readonly builds: Pick<BuildStore, 'findNumber'>;
  readonly stages: Pick<StageStore, 'listWithSteps'>;
  /** Why its waiting stages wait (`pending_reason`); absent: no reasons are given. */
  readonly reasons?: Pick<PendingReasons, 'stages'> | undefined;
}

/**
 * GET /api/repos/{owner}/{name}/builds/{number}: the build with its stages and their steps; each
 * stage that waits (pending, waiting on dependencies, blocked) says why in `pending_reason`.
 */
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
      const stages = await deps.stages.listWithSteps(build.id);
      const reasons = (await deps.reasons?.stages(stages)) ?? new Map<number, PendingReason>();
      return {
        ...buildJson(build),
        stages: stages.map((stage) => {
          const reason = reasons.get(stage.id);
          return { ...stageJson(stage), ...(reason === undefined ? {} : { pending_reason: reason }) };
        }),
      };
    },
  });
}
