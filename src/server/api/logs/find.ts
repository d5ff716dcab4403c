import { z } from 'zod';
import type { BuildStore } from '../../../core/build.js';
import { NotFoundError } from '../../../core/errors.js';
import type { LogStore } from '../../../core/log.js';
import type { StageStore } from '../../../core/stage.js';
import type { StepStore } from '../../../core/step.js';
import { findBuild, findStep } from '../lookup.js';
import { StepParams } from '../params.js';
import { REPO_READ, route, type ApiRoute } from '../route.js';
import { maskDebugShell, masksDebugShell, type WriteAccess } from './debug-shell-mask.js';
import { logLineSchema } from '../schemas.js';

/** What reading a stored step log needs. */
export interface FindLogDeps {
  readonly builds: Pick<BuildStore, 'findNumber'>;
  readonly stages: Pick<StageStore, 'findNumber'>;
  readonly steps: Pick<StepStore, 'findNumber'>;
  readonly logs: Pick<LogStore, 'findJson' | 'find'>;
  /** Whether a caller may write to the repository: only writers see a debug session's lines. */
  readonly canWrite?: WriteAccess;
}

/**
 * GET /api/repos/{owner}/{name}/builds/{number}/logs/{stage}/{step}: the stored log of a step as
 * `[{"pos", "out", "time"}]`. NOT_FOUND while the step has no stored log (not finished yet: follow
 * it live with `…/stream`).
 */
export function findLogRoute(deps: FindLogDeps): ApiRoute {
  return route({
    method: 'GET',
    path: '/api/repos/:owner/:name/builds/:number/logs/:stage/:step',
    access: REPO_READ,
    tag: 'logs',
    summary: 'The stored log of a step (stage and step numbers)',
    params: StepParams,
    response: { schema: z.array(logLineSchema), description: 'the log lines' },
    async handler({ repo, params, reply, principal }) {
      const build = await findBuild(deps.builds, repo.id, params.number);
      const step = await findStep(deps, build, params.stage, params.step);
      if (await masksDebugShell(build, repo, principal, deps.canWrite)) {
        const lines = await deps.logs.find(step.id);
        if (lines === undefined) throw new NotFoundError(`the log of step ${step.name}`);
        return maskDebugShell(lines);
      }
      // The stored JSON is this answer already: sent as it is, a log of 100,000 lines takes tens of
      // milliseconds instead of a second spent parsing it into lines and writing them back.
      const json = await deps.logs.findJson(step.id);
      if (json === undefined) throw new NotFoundError(`the log of step ${step.name}`);
      void reply.type('application/json; charset=utf-8');
      return json;
    },
  });
}
