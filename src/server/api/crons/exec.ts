import type { CronStore } from '../../../core/cron.js';
import { InvalidInputError } from '../../../core/errors.js';
import { cronBuildOf } from '../../cron/job.js';
import type { CommitBuilds } from '../../trigger/index.js';
import { createdBuildJson, noProvider } from '../builds/build-params.js';
import { CronParams } from '../params.js';
import { REPO_WRITE, route, type ApiRoute } from '../route.js';
import { buildSchema } from '../schemas.js';
import { findCron } from './read.js';

/** What running a cron job now needs; `builds` is undefined without a git provider. */
export interface ExecCronDeps {
  readonly crons: Pick<CronStore, 'findName'>;
  readonly builds: Pick<CommitBuilds, 'build'> | undefined;
}

/**
 * POST /api/repos/{owner}/{name}/cron/{cron}: creates the job's build now, as the scheduler would,
 * without changing its schedule. A disabled job does not run, now or later.
 */
export function execCronRoute(deps: ExecCronDeps): ApiRoute {
  return route({
    method: 'POST',
    path: '/api/repos/:owner/:name/cron/:cron',
    access: REPO_WRITE,
    tag: 'cron',
    summary: 'Runs a cron job now',
    params: CronParams,
    response: { schema: buildSchema, description: 'the build created' },
    async handler({ repo, params, request }) {
      const cron = await findCron(deps.crons, repo.id, params.cron);
      if (cron.disabled) throw new InvalidInputError(`cron job ${cron.name} is disabled; enable it first`);
      if (deps.builds === undefined) throw noProvider();
      const { at, what } = cronBuildOf(cron);
      const json = createdBuildJson(await deps.builds.build(repo, at, what));
      request.log.info({ repo: repo.slug, cron: cron.name, build: json.number }, 'cron job run now');
      return json;
    },
  });
}
