import { z } from 'zod';
import type { BuildStore } from '../../../core/build.js';
import type { Rebuilds } from '../../trigger/index.js';
import { findBuild } from '../lookup.js';
import { BuildParams, flagQuery } from '../params.js';
import { REPO_WRITE, route, type ApiRoute } from '../route.js';
import { buildSchema } from '../schemas.js';
import { buildParamsOf, createdBuildJson, noProvider, ParamsCatchall } from './build-params.js';

/** What restarting and promoting builds needs; `rebuilds` is undefined without a git provider. */
export interface RebuildRoutesDeps {
  readonly builds: Pick<BuildStore, 'findNumber'>;
  readonly rebuilds: Pick<Rebuilds, 'restart' | 'promote'> | undefined;
}

const RestartQuery = z
  .object({
    failed: flagQuery.describe(
      'svc: rerun only the stages that did not succeed, reusing the others’ results',
    ),
    debug: flagQuery.describe(
      'restart as a debug build: a failing step on a docker runner with SVC_SHELLSHARE_ENABLED opens a tmate session',
    ),
  })
  .catchall(ParamsCatchall);

const PromoteQuery = z
  .object({ target: z.string().min(1).max(250).describe('the deployment environment (DRONE_DEPLOY_TO)') })
  .catchall(ParamsCatchall);

/**
 * POST …/builds/{number} (restart), …/promote and …/rollback: new builds of an earlier build's commit,
 * by Drone's paths. Every other query parameter is a build parameter (a step variable), winning over
 * the earlier build's own.
 */
export function rebuildRoutes(deps: RebuildRoutesDeps): ApiRoute[] {
  const restart = route({
    method: 'POST',
    path: '/api/repos/:owner/:name/builds/:number',
    access: REPO_WRITE,
    tag: 'builds',
    summary: 'Restarts a build (svc: `?failed=true` reruns only the stages that did not succeed)',
    params: BuildParams,
    query: RestartQuery,
    response: { schema: buildSchema, description: 'the new build, with its stages' },
    async handler({ repo, principal, params, query, request }) {
      if (deps.rebuilds === undefined) throw noProvider();
      const build = await findBuild(deps.builds, repo.id, params.number);
      const by = {
        login: principal.user.login,
        params: buildParamsOf(query, ['failed', 'debug']),
        debug: query.debug,
      };
      const json = createdBuildJson(await deps.rebuilds.restart(repo, build, by, query.failed));
      request.log.info({ repo: repo.slug, build: build.number, restart: json.number }, 'build restarted');
      return json;
    },
  });
  const promotion = (event: 'promote' | 'rollback', summary: string): ApiRoute =>
    route({
      method: 'POST',
      path: `/api/repos/:owner/:name/builds/:number/${event}`,
      access: REPO_WRITE,
      tag: 'builds',
      summary,
      params: BuildParams,
      query: PromoteQuery,
      response: { schema: buildSchema, description: `the new \`${event}\` build, with its stages` },
      async handler({ repo, principal, params, query, request }) {
        if (deps.rebuilds === undefined) throw noProvider();
        const build = await findBuild(deps.builds, repo.id, params.number);
        const by = { login: principal.user.login, params: buildParamsOf(query, ['target']) };
        const json = createdBuildJson(await deps.rebuilds.promote(repo, build, by, event, query.target));
        request.log.info(
          { repo: repo.slug, build: build.number, [event]: json.number, target: query.target },
          event,
        );
        return json;
      },
    });
  return [
    restart,
    promotion('promote', 'Promotes a build to a deployment target (event `promote`, DRONE_DEPLOY_TO)'),
    promotion('rollback', 'Rolls a deployment target back to a build (event `rollback`, DRONE_DEPLOY_TO)'),
  ];
}
