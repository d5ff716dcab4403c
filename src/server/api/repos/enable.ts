import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ForbiddenError, SvcError } from '../../../core/errors.js';
import type { SystemEvents } from '../../../core/events.js';
import type { RepoStore } from '../../../core/repo.js';
import type { ScmProvider } from '../../../core/scm.js';
import type { Authenticator } from '../../auth/authenticator.js';
import { scmTokenOf } from '../../auth/scm-token.js';
import { webhookUrl, type HookAddress } from '../../web/address.js';
import { repoJson } from '../json/repo.js';
import { parseInput, RepoParams } from '../params.js';
import type { RepoSync } from '../repo-sync.js';
import { updateRepo } from '../repo-update.js';

/** What enabling a repository needs; `provider` and `sync` are undefined without a git provider. */
export interface EnableRepoDeps {
  readonly auth: Pick<Authenticator, 'require'>;
  readonly repos: Pick<RepoStore, 'find' | 'update'>;
  readonly provider: Pick<ScmProvider, 'findRepo' | 'createHook'> | undefined;
  readonly sync: Pick<RepoSync, 'save'> | undefined;
  readonly address: HookAddress;
  /** Told `repo:enabled` (global webhooks). */
  readonly events?: SystemEvents;
}

/**
 * POST /api/repos/{owner}/{name}: enables a repository. The caller must administer it at the git
 * provider (asked afresh, not from svc's copy). svc makes a new random webhook secret, creates (or
 * updates) the provider webhook at `/hook` (or the proxy address) with it, and only then marks the
 * repository active and owned by the caller, whose token svc uses for it from now on. A provider
 * refusal leaves the repository as it was.
 */
export function enableRepoRoute(app: FastifyInstance, deps: EnableRepoDeps): void {
  app.post('/api/repos/:owner/:name', async (request) => {
    const { owner, name } = parseInput(RepoParams, request.params);
    const { user } = await deps.auth.require(request);
    if (deps.provider === undefined || deps.sync === undefined) {
      throw new SvcError(
        'INVALID_SETTINGS',
        'no git provider is configured, so repositories cannot be enabled',
      );
    }
    if (user.scmToken === '') {
      throw new ForbiddenError(
        `${user.login} has no git provider credentials (machine account): log in through the provider to enable repositories`,
      );
    }
    const token = scmTokenOf(user);
    const scm = await deps.provider.findRepo(token, { namespace: owner, name });
    const { repo, perm } = await deps.sync.save(scm, user);
    if (!perm.admin)
      throw new ForbiddenError(`enabling ${repo.slug} needs admin rights on it at the git provider`);
    const hookSecret = randomBytes(32).toString('hex');
    await deps.provider.createHook(
      token,
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
    return repoJson(enabled, perm);
  });
}
