import { z } from 'zod';
import type { Build, BuildStore, RecentBuild } from '../../../core/build.js';
import type { RepoStore, RepoWithPerm } from '../../../core/repo.js';
import type { User } from '../../../core/user.js';
import { toSeconds } from '../../../runner/client/wire/convert.js';
import { buildJson } from '../json/build.js';
import { repoJson } from '../json/repo.js';
import { flagQuery } from '../params.js';
import type { RepoSync } from '../repo-sync.js';
import { route, USER, type ApiRoute, type HttpMethod } from '../route.js';
import { repoSchema } from '../schemas.js';

/** What listing the caller's repositories needs; `sync` is undefined without a git provider. */
export interface UserReposDeps {
  readonly repos: Pick<RepoStore, 'listUser'>;
  readonly builds: Pick<BuildStore, 'newestOf' | 'recentOf'>;
  readonly sync: Pick<RepoSync, 'sync'> | undefined;
}

const RECENT_RANGE = 'must be a whole number of builds from 1 to 50';

const ReposQuery = z.object({
  latest: flagQuery.describe('add each repository’s newest build as `build`'),
  recent: z.coerce
    .number({ error: RECENT_RANGE })
    .int({ error: RECENT_RANGE })
    .min(1, { error: RECENT_RANGE })
    .max(50, { error: RECENT_RANGE })
    .optional()
    .describe('add each repository’s last N builds (1 to 50) as `recent`, newest first'),
  async: flagQuery.describe('accepted for Drone’s clients; svc always syncs before answering'),
});

/**
 * GET /api/user/repos: the repositories the caller can see, enabled or not, with their permissions,
 * synchronized from the git provider with the caller's token first. POST does the same (Drone's
 * explicit sync). Machine accounts have no provider token: they get what svc already knows.
 * `?latest=true` adds each repository's newest build as `build`; `?recent=N` its last N builds'
 * numbers, statuses and times as `recent` (the start page charts their durations).
 */
export function userReposRoutes(deps: UserReposDeps): ApiRoute[] {
  const list = (method: HttpMethod, summary: string): ApiRoute =>
    route({
      method,
      path: '/api/user/repos',
      access: USER,
      tag: 'user',
      summary,
      query: ReposQuery,
      response: { schema: z.array(repoSchema), description: 'the repositories, by slug' },
      async handler({ principal, query }) {
        const repos = await listed(deps, principal.user);
        const newest = query.latest
          ? await deps.builds.newestOf(repos.map(({ repo }) => repo.id))
          : new Map<number, Build>();
        const recent =
          query.recent === undefined
            ? undefined
            : await deps.builds.recentOf(
                repos.map(({ repo }) => repo.id),
                query.recent,
              );
        return repos.map(({ repo, perm }) => {
          const json = repoJson(repo, perm);
          const build = newest.get(repo.id);
          return {
            ...json,
            ...(build === undefined ? {} : { build: buildJson(build) }),
            // Every repository gets the list when it is asked for: empty when it has no builds.
            ...(recent === undefined ? {} : { recent: (recent.get(repo.id) ?? []).map(recentJson) }),
          };
        });
      },
    });
  return [
    list('GET', 'The repositories the caller can see, synchronized from the git provider'),
    list('POST', 'Synchronizes the caller’s repositories from the git provider (Drone’s explicit sync)'),
  ];
}

/** A recent build as the API shows it: times in epoch seconds, as `build`'s. */
function recentJson({ number, status, started, finished }: RecentBuild) {
  return { number, status, started: toSeconds(started), finished: toSeconds(finished) };
}

async function listed(deps: UserReposDeps, user: User): Promise<RepoWithPerm[]> {
  if (deps.sync !== undefined && user.scmToken !== '') return deps.sync.sync(user);
  return deps.repos.listUser(user.id);
}
