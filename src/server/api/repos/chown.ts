import type { SystemEvents } from '../../../core/events.js';
import type { RepoStore } from '../../../core/repo.js';
import { repoJson } from '../json/repo.js';
import { RepoParams } from '../params.js';
import type { RepoAccess } from '../repo-access.js';
import { updateRepo } from '../repo-update.js';
import { REPO_ADMIN_AT_PROVIDER, route, type ApiRoute } from '../route.js';
import { repoSchema } from '../schemas.js';

/** What taking a repository over needs. */
export interface ChownRepoDeps {
  readonly access: Pick<RepoAccess, 'rights'>;
  readonly repos: Pick<RepoStore, 'find' | 'update'>;
  /** Told `repo:updated` (global webhooks). */
  readonly events?: SystemEvents | undefined;
}

/**
 * POST /api/repos/{owner}/{name}/chown: the caller becomes the user svc acts as for the repository
 * (its git provider credentials fetch pipeline files, clone, post statuses and manage the webhook
 * from now on) — for when the user who enabled it has left. Because svc will use the caller's
 * credentials, the git provider must say afresh that the caller administers the repository, as for
 * enabling: svc administrators without rights there, and machine accounts (no credentials), cannot.
 */
export function chownRepoRoute(deps: ChownRepoDeps): ApiRoute {
  return route({
    method: 'POST',
    path: '/api/repos/:owner/:name/chown',
    access: REPO_ADMIN_AT_PROVIDER,
    tag: 'repos',
    summary: 'Makes the caller the user svc acts as for the repository',
    params: RepoParams,
    response: { schema: repoSchema, description: 'the repository, now with the caller as `user_id`' },
    async handler({ repo, principal, request }) {
      const { user } = principal;
      const owned =
        repo.userId === user.id
          ? repo
          : await updateRepo(deps.repos, repo, (current) => ({ ...current, userId: user.id }));
      if (owned !== repo) {
        request.log.info({ repo: owned.slug, user: user.login, was: repo.userId }, 'repository taken over');
        deps.events?.emit({ kind: 'repo', action: 'updated', repo: owned });
      }
      return repoJson(owned, await deps.access.rights(owned, principal));
    },
  });
}
