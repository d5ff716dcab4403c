import type { FastifyInstance } from 'fastify';
import type { BuildStore } from '../../../core/build.js';
import { NotFoundError } from '../../../core/errors.js';
import type { LogStore } from '../../../core/log.js';
import type { StageStore } from '../../../core/stage.js';
import type { StepStore } from '../../../core/step.js';
import type { Authenticator } from '../../auth/authenticator.js';
import { findBuild, findStep } from '../lookup.js';
import { parseInput, StepParams } from '../params.js';
import type { RepoAccess } from '../repo-access.js';

/** What reading a stored step log needs. */
export interface FindLogDeps {
  readonly auth: Pick<Authenticator, 'identify'>;
  readonly access: Pick<RepoAccess, 'check'>;
  readonly builds: Pick<BuildStore, 'findNumber'>;
  readonly stages: Pick<StageStore, 'findNumber'>;
  readonly steps: Pick<StepStore, 'findNumber'>;
  readonly logs: Pick<LogStore, 'find'>;
}

/**
 * GET /api/repos/{owner}/{name}/builds/{number}/logs/{stage}/{step}: the stored log of a step as
 * `[{"pos", "out", "time"}]`. NOT_FOUND while the step has no stored log (not finished yet: follow
 * it live with `…/stream`).
 */
export function findLogRoute(app: FastifyInstance, deps: FindLogDeps): void {
  app.get('/api/repos/:owner/:name/builds/:number/logs/:stage/:step', async (request) => {
    const params = parseInput(StepParams, request.params);
    const repo = await deps.access.check(
      params.owner,
      params.name,
      await deps.auth.identify(request),
      'read',
    );
    const build = await findBuild(deps.builds, repo.id, params.number);
    const step = await findStep(deps, build, params.stage, params.step);
    const lines = await deps.logs.find(step.id);
    if (lines === undefined) throw new NotFoundError(`the log of step ${step.name}`);
    return lines.map(({ pos, out, time }) => ({ pos, out, time }));
  });
}
