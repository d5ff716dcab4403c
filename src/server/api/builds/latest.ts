import { z } from 'zod';
import type { BuildStore } from '../../../core/build.js';
import { NotFoundError } from '../../../core/errors.js';
import type { LatestKind } from '../../../core/latest.js';
import type { StageStore } from '../../../core/stage.js';
import { buildJson } from '../json/build.js';
import { RepoParams } from '../params.js';
import { REPO_READ, REPO_WRITE, route, type ApiRoute } from '../route.js';
import { buildSchema } from '../schemas.js';

/** What the newest builds' routes need. */
export interface LatestBuildsDeps {
  readonly builds: Pick<BuildStore, 'findLatest' | 'listLatest' | 'deleteLatest'>;
  readonly stages: Pick<StageStore, 'listWithSteps'>;
}

const LatestQuery = z.object({
  ref: z.string().min(1).max(500).optional().describe('a full git ref, e.g. `refs/tags/v1.2.0`'),
  branch: z.string().min(1).max(250).optional().describe('a branch; wins over `ref`'),
});

/** The three lists, by Drone's paths, and the path parameter naming an entry of each. */
const LISTS: readonly { path: string; kind: LatestKind; param: string; what: string }[] = [
  { path: 'branches', kind: 'branch', param: 'branch', what: 'branch' },
  { path: 'pulls', kind: 'pull_request', param: 'pull', what: 'pull request' },
  { path: 'deployments', kind: 'deployment', param: 'target', what: 'deployment target' },
];

/**
 * GET …/builds/latest (the newest build of a branch or ref; the default branch when neither is
 * given, as in Drone), and the newest build per branch, pull request and deployment target with
 * DELETEs that take one name off a list (its builds stay).
 */
export function latestBuildRoutes(deps: LatestBuildsDeps): ApiRoute[] {
  const latest = route({
    method: 'GET',
    path: '/api/repos/:owner/:name/builds/latest',
    access: REPO_READ,
    tag: 'builds',
    summary: 'The newest build of a branch or ref (default: the default branch), with its stages and steps',
    params: RepoParams,
    query: LatestQuery,
    response: { schema: buildSchema, description: 'the build with `stages`' },
    async handler({ repo, query }) {
      const which =
        query.branch !== undefined || query.ref !== undefined
          ? { branch: query.branch, ref: query.ref }
          : { branch: repo.defaultBranch };
      const build = await deps.builds.findLatest(repo.id, definedOnly(which));
      if (build === undefined) throw new NotFoundError(`a build of ${query.ref ?? `branch ${which.branch}`}`);
      return buildJson(build, await deps.stages.listWithSteps(build.id));
    },
  });
  return [latest, ...LISTS.flatMap((list) => listRoutes(deps, list))];
}

function listRoutes(deps: LatestBuildsDeps, list: (typeof LISTS)[number]): ApiRoute[] {
  const path = `/api/repos/:owner/:name/builds/${list.path}`;
  return [
    route({
      method: 'GET',
      path,
      access: REPO_READ,
      tag: 'builds',
      summary: `The newest build of each ${list.what}, newest first`,
      params: RepoParams,
      response: { schema: z.array(buildSchema), description: `one build per ${list.what}` },
      async handler({ repo }) {
        return (await deps.builds.listLatest(repo.id, list.kind)).map((build) => buildJson(build));
      },
    }),
    route({
      method: 'DELETE',
      path: `${path}/:${list.param}`,
      access: REPO_WRITE,
      tag: 'builds',
      summary: `Takes a ${list.what} off the list (its builds stay)`,
      params: RepoParams.extend({ [list.param]: z.string().min(1).max(250) }),
      response: { status: 204, description: 'taken off (also when it was not on the list)' },
      async handler({ repo, params, reply }) {
        const name = (params as Record<string, string>)[list.param] ?? '';
        await deps.builds.deleteLatest(repo.id, list.kind, name);
        return reply.code(204).send();
      },
    }),
  ];
}

function definedOnly(which: { branch?: string | undefined; ref?: string | undefined }): {
  branch?: string;
  ref?: string;
} {
  return {
    ...(which.branch === undefined ? {} : { branch: which.branch }),
    ...(which.ref === undefined ? {} : { ref: which.ref }),
  };
}
