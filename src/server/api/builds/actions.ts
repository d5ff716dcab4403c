import type { BuildStore } from '../../../core/build.js';
import type { StageStore } from '../../../core/stage.js';
import type { BuildActions } from '../../queue/build-actions.js';
import { buildJson } from '../json/build.js';
import { findBuild } from '../lookup.js';
import { BuildParams, ordinal } from '../params.js';
import { REPO_WRITE, route, type ApiRoute } from '../route.js';
import { buildSchema } from '../schemas.js';

/** What acting on one build needs. */
export interface BuildActionDeps {
  readonly builds: Pick<BuildStore, 'findNumber'>;
  readonly stages: Pick<StageStore, 'listWithSteps'>;
  readonly actions: Pick<BuildActions, 'cancel' | 'approve' | 'decline'>;
}

const StageActionParams = BuildParams.extend({ stage: ordinal });

/**
 * Drone's build actions, for callers with write access: cancel a build (DELETE
 * …/builds/{number}: running steps are killed and their containers removed by the runners, the
 * build ends `killed`), approve or decline a stage waiting for approval (…/approve/{stage},
 * …/decline/{stage}). Each answers the build with its stages as they now are.
 */
export function buildActionRoutes(deps: BuildActionDeps): ApiRoute[] {
  const answer = async (buildId: number, build: Parameters<typeof buildJson>[0]) =>
    buildJson(build, await deps.stages.listWithSteps(buildId));
  const common = { access: REPO_WRITE, tag: 'builds' } as const;
  return [
    route({
      ...common,
      method: 'DELETE',
      path: '/api/repos/:owner/:name/builds/:number',
      summary: 'Cancels the build: its runners stop it, it ends killed',
      params: BuildParams,
      response: { schema: buildSchema, description: 'the cancelled build with its stages' },
      async handler({ repo, params, principal }) {
        const build = await findBuild(deps.builds, repo.id, params.number);
        const cancelled = await deps.actions.cancel(build, principal.user.login);
        return answer(build.id, cancelled);
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/repos/:owner/:name/builds/:number/approve/:stage',
      summary: 'Approves a stage that waits for approval: it is queued',
      params: StageActionParams,
      response: { schema: buildSchema, description: 'the build with its stages' },
      async handler({ repo, params }) {
        const build = await findBuild(deps.builds, repo.id, params.number);
        return answer(build.id, await deps.actions.approve(build, params.stage));
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/repos/:owner/:name/builds/:number/decline/:stage',
      summary: 'Declines a stage that waits for approval: the build ends declined',
      params: StageActionParams,
      response: { schema: buildSchema, description: 'the build with its stages' },
      async handler({ repo, params, principal }) {
        const build = await findBuild(deps.builds, repo.id, params.number);
        return answer(build.id, await deps.actions.decline(build, params.stage, principal.user.login));
      },
    }),
  ];
}
