import { z } from 'zod';
import { InvalidInputError, SvcError } from '../../../core/errors.js';
import type { CommitBuilds } from '../../trigger/index.js';
import { buildJson } from '../json/build.js';
import { RepoParams } from '../params.js';
import { REPO_WRITE, route, type ApiRoute } from '../route.js';
import { buildSchema } from '../schemas.js';

/** What creating a custom build needs; `builds` is undefined without a git provider. */
export interface CreateBuildDeps {
  readonly builds: Pick<CommitBuilds, 'build'> | undefined;
}

/** Query parameters that are not build parameters (`access_token` authenticates, as in Drone). */
const RESERVED = new Set(['branch', 'commit', 'access_token']);

/** Parameters become step variables: their names must be variable names. */
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const CreateQuery = z
  .object({
    branch: z.string().max(250).optional().describe('default: the repository’s default branch'),
    commit: z
      .string()
      .regex(/^[0-9a-f]{40}$|^[0-9a-f]{64}$/i, 'a full commit sha')
      .optional()
      .describe('default: the head of the branch'),
  })
  .catchall(z.union([z.string(), z.array(z.string())]));

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
      if (deps.builds === undefined) {
        throw new SvcError('INVALID_SETTINGS', 'no git provider is configured, so svc cannot build');
      }
      const branch = query.branch || repo.defaultBranch;
      const params = paramsOf(query);
      const login = principal.user.login;
      const result = await deps.builds.build(
        repo,
        query.commit === undefined ? { branch } : { sha: query.commit },
        { event: 'custom', branch, trigger: login, sender: login, params },
      );
      if (result.kind === 'skipped') throw new InvalidInputError(`no build was created: ${result.reason}`);
      request.log.info({ repo: repo.slug, build: result.build.number, user: login }, 'custom build created');
      return buildJson(result.build, result.stages);
    },
  });
}

function paramsOf(query: Record<string, string | string[] | undefined>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    if (RESERVED.has(key) || value === undefined) continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (first === undefined) continue;
    if (!VARIABLE.test(key)) {
      throw new InvalidInputError(
        `${key}: build parameters become step variables; use letters, digits and "_", not starting with a digit`,
      );
    }
    params[key] = first;
  }
  return params;
}
