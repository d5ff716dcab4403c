import { z } from 'zod';
import type { CommitBuilds } from '../../trigger/index.js';
import { buildParamsOf, createdBuildJson, noProvider, ParamsCatchall } from './build-params.js';
import { flagQuery, RepoParams } from '../params.js';
import { REPO_WRITE, route, type ApiRoute } from '../route.js';
import { buildSchema } from '../schemas.js';

/** What creating a custom build needs; `builds` is undefined without a git provider. */
export interface CreateBuildDeps {
  readonly builds: Pick<CommitBuilds, 'build'> | undefined;
}

const CreateQuery = z
  .object({
    branch: z.string().max(250).optional().describe('default: the repository’s default branch'),
    commit: z
      .string()
      .regex(/^[0-9a-f]{40}$|^[0-9a-f]{64}$/i, 'a full commit sha')
      .optional()
      .describe('default: the head of the branch'),
    debug: flagQuery.describe(
      'a debug build: a failing step on a docker runner with SVC_SHELLSHARE_ENABLED opens a tmate session',
    ),
  })
  .catchall(ParamsCatchall);

/**
 * POST /api/repos/{owner}/{name}/builds?branch=&commit=&KEY=VALUE: a custom build (event `custom`) of
 * a branch's head or of a given commit, for the caller; every other query parameter is a parameter
 * of the build, which its steps get as a variable (the first value when repeated, as Drone reads it).
 */
export function createBuildRoute(deps: CreateBuildDeps): ApiRoute {
  return route({
    method: 'POST',
    path: '/api/repos/:owner/:name/builds',
    access: REPO_WRITE,
    tag: 'builds',
    summary: 'Creates a custom build of a branch or a commit, with parameters',
    params: RepoParams,
    query: CreateQuery,
    response: { schema: buildSchema, description: 'the build created, with its stages' },
    async handler({ repo, principal, query, request }) {
      if (deps.builds === undefined) throw noProvider();
      const branch = query.branch || repo.defaultBranch;
      const params = buildParamsOf(query, ['branch', 'commit', 'debug']);
      const login = principal.user.login;
      const result = await deps.builds.build(
        repo,
        query.commit === undefined ? { branch } : { sha: query.commit },
        { event: 'custom', branch, trigger: login, sender: login, params, debug: query.debug },
      );
      const json = createdBuildJson(result);
      request.log.info({ repo: repo.slug, build: json.number, user: login }, 'custom build created');
      return json;
    },
  });
}
