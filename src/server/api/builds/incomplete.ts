import { z } from 'zod';
import type { Build, BuildStore } from '../../../core/build.js';
import type { Repo, RepoStore } from '../../../core/repo.js';
import type { Stage, StageStore } from '../../../core/stage.js';
import type { PendingReasons } from '../../queue/pending-reasons.js';
import { buildJson, stageJson } from '../json/build.js';
import { repoJson } from '../json/repo.js';
import { flagQuery } from '../params.js';
import { ADMIN, route, type ApiRoute } from '../route.js';
import { repoSchema } from '../schemas.js';

/** What listing incomplete builds needs. */
export interface IncompleteBuildsDeps {
  readonly builds: Pick<BuildStore, 'listIncomplete'>;
  readonly repos: Pick<RepoStore, 'find'>;
  readonly stages: Pick<StageStore, 'list'>;
  readonly reasons: Pick<PendingReasons, 'stages'>;
}

const IncompleteQuery = z.object({
  stages: flagQuery.describe(
    'svc: `true` adds each build’s `stages` (without steps), the waiting ones with `pending_reason`',
  ),
});

/**
 * GET /api/builds/incomplete (svc administrators): Drone's shape — one entry per build that is not
 * done (pending, waiting, blocked or running), oldest first, as its repository with the build in
 * `build`; a repository with two such builds appears twice. With `?stages=true` (svc's addition)
 * each build carries its stages, so that one request shows which runner runs what.
 */
export function incompleteBuildsRoute(deps: IncompleteBuildsDeps): ApiRoute {
  return route({
    method: 'GET',
    path: '/api/builds/incomplete',
    access: ADMIN,
    tag: 'builds',
    summary: 'The builds that are not done, each with its repository',
    query: IncompleteQuery,
    response: { schema: z.array(repoSchema), description: 'repositories, each with one incomplete `build`' },
    async handler({ query }) {
      const builds = await deps.builds.listIncomplete();
      const repos = new Map<number, Repo | undefined>();
      for (const id of new Set(builds.map((b) => b.repoId))) repos.set(id, await deps.repos.find(id));
      const stages = query.stages ? await stagesOf(deps, builds) : undefined;
      return builds.flatMap((build: Build) => {
        const repo = repos.get(build.repoId);
        // A build whose repository was deleted meanwhile is left out.
        if (repo === undefined) return [];
        const json = buildJson(build);
        return [{ ...repoJson(repo), build: stages ? { ...json, stages: stages(build.id) } : json }];
      });
    },
  });
}

/** The stages of `builds` as the API shows them, by build id; the reasons are read once for all. */
async function stagesOf(
  deps: IncompleteBuildsDeps,
  builds: readonly Build[],
): Promise<(buildId: number) => Record<string, unknown>[]> {
  const byBuild = new Map<number, Stage[]>();
  for (const build of builds) byBuild.set(build.id, await deps.stages.list(build.id));
  const reasons = await deps.reasons.stages([...byBuild.values()].flat());
  return (buildId) =>
    (byBuild.get(buildId) ?? []).map((stage) => {
      const reason = reasons.get(stage.id);
      return { ...stageJson(stage), ...(reason === undefined ? {} : { pending_reason: reason }) };
    });
}
