import { randomBytes } from 'node:crypto';
import { SvcError } from '../../../core/errors.js';
import type { SystemEvents } from '../../../core/events.js';
import type { RepoStore } from '../../../core/repo.js';
import type { ScmProvider } from '../../../core/scm.js';
import { scmTokenOf } from '../../auth/scm-token.js';
import { webhookUrl, type HookAddress } from '../../web/address.js';
import { repoJson } from '../json/repo.js';
import { RepoParams } from '../params.js';
import type { RepoAccess } from '../repo-access.js';
import { updateRepo } from '../repo-update.js';
import { REPO_ADMIN_AT_PROVIDER, route, type ApiRoute } from '../route.js';
import { repoSchema } from '../schemas.js';

/** What enabling a repository needs; `provider` is undefined without a git provider. */
export interface EnableRepoDeps {
  readonly access: Pick<RepoAccess, 'rights'>;
  readonly repos: Pick<RepoStore, 'find' | 'update'>;
  readonly provider: Pick<ScmProvider, 'createHook'> | undefined;
  readonly address: HookAddress;
  /** Told `repo:enabled` (global webhooks). */
  readonly events?: SystemEvents | undefined;
}

/**
 * POST /api/repos/{owner}/{name}: enables a repository. The caller must administer it at the git
 * provider (asked afresh by the guard, not from svc's copy). svc makes a new random webhook secret,
 * creates (or updates) the provider webhook at `/hook` (or the proxy address) with it, and only then
 * marks the repository active and owned by the caller, whose token svc uses for it from now on. A
 * provider refusal leaves the repository as it was.
 */
export function enableRepoRoute(deps: EnableRepoDeps): ApiRoute {
  return route({
    method: 'POST',
    path: '/api/repos/:owner/:name',
    access: REPO_ADMIN_AT_PROVIDER,
    tag: 'repos',
    summary: 'Enables the repository: creates its webhook at the git provider',
    params: RepoParams,
    response: { schema: repoSchema, description: 'the enabled repository' },
    async handler({ repo, principal, request }) {
      if (deps.provider === undefined) {
        throw new SvcError(
          'INVALID_SETTINGS',
          'no git provider is configured, so repositories cannot be enabled',
        );
      }
      const { user } = principal;
      const hookSecret = randomBytes(32).toString('hex');
      await deps.provider.createHook(
        scmTokenOf(user),
        { namespace: repo.namespace, name: repo.name },
        { url: webhookUrl(deps.address), secret: hookSecret },
      );
      const enabled = await updateRepo(deps.repos, repo, (current) => ({
        ...current,
        active: true,
        userId: user.id,
        hookSecret,
      }));
      request.log.info({ repo: enabled.slug, user: user.login }, 'repository enabled');
      deps.events?.emit({ kind: 'repo', action: 'enabled', repo: enabled });
      return repoJson(enabled, await deps.access.rights(enabled, principal));
    },
  });
}
