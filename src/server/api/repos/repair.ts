import { randomBytes } from 'node:crypto';
import { ConflictError, SvcError } from '../../../core/errors.js';
import type { SystemEvents } from '../../../core/events.js';
import type { RepoStore } from '../../../core/repo.js';
import type { ScmProvider } from '../../../core/scm.js';
import type { UserStore } from '../../../core/user.js';
import { scmTokenOf } from '../../auth/scm-token.js';
import { webhookUrl, type HookAddress } from '../../web/address.js';
import { repoJson } from '../json/repo.js';
import { RepoParams } from '../params.js';
import type { RepoAccess } from '../repo-access.js';
import { updateRepo } from '../repo-update.js';
import { REPO_ADMIN, route, type ApiRoute } from '../route.js';
import { repoSchema } from '../schemas.js';

/** What repairing a repository needs; `provider` is undefined without a git provider. */
export interface RepairRepoDeps {
  readonly access: Pick<RepoAccess, 'rights'>;
  readonly repos: Pick<RepoStore, 'find' | 'update'>;
  readonly users: Pick<UserStore, 'find'>;
  readonly provider: Pick<ScmProvider, 'findRepo' | 'createHook'> | undefined;
  readonly address: HookAddress;
  /** Told `repo:updated` (global webhooks). */
  readonly events?: SystemEvents | undefined;
}

/**
 * POST /api/repos/{owner}/{name}/repair: for a webhook deleted or changed at the git provider, or a
 * server moved to a new address. With the credentials of the user svc acts as for the repository
 * (as Drone does), svc reads the repository's details afresh (default branch, clone URLs,
 * visibility), makes a new webhook secret and creates (or updates) the webhook with it, then stores
 * both. A provider refusal leaves the repository as it was. Only enabled repositories can be
 * repaired: the others have no webhook to repair.
 */
export function repairRepoRoute(deps: RepairRepoDeps): ApiRoute {
  return route({
    method: 'POST',
    path: '/api/repos/:owner/:name/repair',
    access: REPO_ADMIN,
    tag: 'repos',
    summary: 'Re-creates the repository’s webhook at the git provider with a new secret',
    params: RepoParams,
    response: { schema: repoSchema, description: 'the repaired repository' },
    async handler({ repo, principal, request }) {
      const { provider } = deps;
      if (provider === undefined) {
        throw new SvcError(
          'INVALID_SETTINGS',
          'no git provider is configured, so webhooks cannot be repaired',
        );
      }
      if (!repo.active) {
        throw new ConflictError(
          `${repo.slug} is not enabled, so it has no webhook to repair: enable it (POST /api/repos/${repo.slug})`,
        );
      }
      const owner = repo.userId === 0 ? undefined : await deps.users.find(repo.userId);
      if (owner === undefined || owner.scmToken === '') {
        throw new ConflictError(
          `the user svc acts as for ${repo.slug} is gone or has no git provider credentials: ` +
            `take the repository over first (POST /api/repos/${repo.slug}/chown)`,
        );
      }
      const token = scmTokenOf(owner);
      const ref = { namespace: repo.namespace, name: repo.name };
      const scm = await provider.findRepo(token, ref);
      const hookSecret = randomBytes(32).toString('hex');
      await provider.createHook(token, ref, { url: webhookUrl(deps.address), secret: hookSecret });
      const repaired = await updateRepo(deps.repos, repo, (current) => ({
        ...current,
        defaultBranch: scm.defaultBranch,
        cloneUrl: scm.cloneUrl,
        cloneUrlSsh: scm.cloneUrlSsh,
        private: scm.private,
        visibility: scm.visibility,
        // Some providers' repository answers carry no web link: keep the one svc has.
        link: scm.link === '' ? current.link : scm.link,
        hookSecret,
      }));
      request.log.info({ repo: repaired.slug, user: principal.user.login }, 'repository webhook repaired');
      deps.events?.emit({ kind: 'repo', action: 'updated', repo: repaired });
      return repoJson(repaired, await deps.access.rights(repaired, principal));
    },
  });
}
