import type { BuildStore } from '../../../core/build.js';
import type { LogStore } from '../../../core/log.js';
import type { StageStore } from '../../../core/stage.js';
import type { StepStore } from '../../../core/step.js';
import { findBuild, findStep } from '../lookup.js';
import { StepParams } from '../params.js';
import { REPO_ADMIN, route, type ApiRoute } from '../route.js';

/** What deleting a step's log needs. */
export interface DeleteLogDeps {
  readonly builds: Pick<BuildStore, 'findNumber'>;
  readonly stages: Pick<StageStore, 'findNumber'>;
  readonly steps: Pick<StepStore, 'findNumber'>;
  readonly logs: Pick<LogStore, 'delete'>;
}

/**
 * DELETE /api/repos/{owner}/{name}/builds/{number}/logs/{stage}/{step} (repository admins, as in
 * Drone): deletes the stored log of a step — e.g. one that printed a secret it should not have.
 */
export function deleteLogRoute(deps: DeleteLogDeps): ApiRoute {
  return route({
    method: 'DELETE',
    path: '/api/repos/:owner/:name/builds/:number/logs/:stage/:step',
    access: REPO_ADMIN,
    tag: 'logs',
    summary: 'Deletes the stored log of a step',
    params: StepParams,
    response: { status: 204, description: 'deleted (also when there was none)' },
    async handler({ repo, params, reply, principal, request }) {
      const build = await findBuild(deps.builds, repo.id, params.number);
      const step = await findStep(deps, build, params.stage, params.step);
      await deps.logs.delete(step.id);
      request.log.info(
        { repo: repo.slug, build: build.number, step: step.id, by: principal.user.login },
        'log deleted',
      );
      return reply.code(204).send();
    },
  });
}
