import { z } from 'zod';
import type { SystemEvents } from '../../../core/events.js';
import { ForbiddenError } from '../../../core/errors.js';
import type { Repo, RepoStore } from '../../../core/repo.js';
import type { ScmProvider } from '../../../core/scm.js';
import type { UserStore } from '../../../core/user.js';
import { scmTokenOf } from '../../auth/scm-token.js';
import { webhookUrl, type HookAddress } from '../../web/address.js';
import { repoJson } from '../json/repo.js';
import { RepoParams } from '../params.js';
import { updateRepo } from '../repo-update.js';
import { REPO_ADMIN, route, type ApiRoute } from '../route.js';
import { repoSchema } from '../schemas.js';

/** What changing and disabling a repository need. */
export interface ChangeRepoDeps {
  readonly repos: Pick<RepoStore, 'find' | 'update'>;
  readonly users: Pick<UserStore, 'find'>;
  /** Removes the provider webhook on disable; undefined without a git provider. */
  readonly provider: Pick<ScmProvider, 'deleteHook'> | undefined;
  readonly address: HookAddress;
  /** Told `repo:updated` and `repo:disabled` (global webhooks). */
  readonly events?: SystemEvents | undefined;
}

/** Drone's repository patch: every field optional; `trusted` and `timeout` are for svc administrators. */
const RepoPatch = z
  .object({
    config_path: z.string().max(500),
    protected: z.boolean(),
    trusted: z.boolean(),
    timeout: z
      .number()
      .int()
      .min(1)
      .max(24 * 60),
    visibility: z.enum(['public', 'private', 'internal']),
    ignore_forks: z.boolean(),
    ignore_pull_requests: z.boolean(),
    auto_cancel_pull_requests: z.boolean(),
    auto_cancel_pushes: z.boolean(),
  })
  .partial()
  .strict();

/**
 * PATCH /api/repos/{owner}/{name}: changes a repository's settings (admins of the repository; only
 * svc administrators may change `trusted` and `timeout`, which decide what builds may do to the
 * runners). DELETE /api/repos/{owner}/{name}: disables it — svc stops building it and removes its
 * webhook at the provider (a provider that refuses leaves a webhook svc now rejects, and is logged).
 */
export function changeRepoRoutes(deps: ChangeRepoDeps): ApiRoute[] {
  return [
    route({
      method: 'PATCH',
      path: '/api/repos/:owner/:name',
      access: REPO_ADMIN,
      tag: 'repos',
      summary: 'Changes the repository’s settings',
      params: RepoParams,
      body: RepoPatch,
      response: { schema: repoSchema, description: 'the repository as changed' },
      async handler({ repo, principal, body }) {
        if ((body.trusted !== undefined || body.timeout !== undefined) && !principal.user.admin) {
          throw new ForbiddenError('only svc administrators may change trusted and timeout');
        }
        const changed = await updateRepo(deps.repos, repo, (current) => applyPatch(current, body));
        deps.events?.emit({ kind: 'repo', action: 'updated', repo: changed });
        return repoJson(changed);
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/repos/:owner/:name',
      access: REPO_ADMIN,
      tag: 'repos',
      summary: 'Disables the repository and removes its webhook at the git provider',
      params: RepoParams,
      response: { schema: repoSchema, description: 'the disabled repository' },
      async handler({ repo, principal, request }) {
        const disabled = await updateRepo(deps.repos, repo, (current) => ({
          ...current,
          active: false,
          hookSecret: '',
        }));
        await removeHook(deps, repo, (message, error) =>
          request.log.warn({ err: error, repo: repo.slug }, message),
        );
        request.log.info({ repo: disabled.slug, user: principal.user.login }, 'repository disabled');
        deps.events?.emit({ kind: 'repo', action: 'disabled', repo: disabled });
        return repoJson(disabled);
      },
    }),
  ];
}

function applyPatch(repo: Repo, patch: z.infer<typeof RepoPatch>): Repo {
  return {
    ...repo,
    ...(patch.config_path === undefined ? {} : { configPath: patch.config_path }),
    ...(patch.protected === undefined ? {} : { protected: patch.protected }),
    ...(patch.trusted === undefined ? {} : { trusted: patch.trusted }),
    ...(patch.timeout === undefined ? {} : { timeout: patch.timeout }),
    ...(patch.visibility === undefined ? {} : { visibility: patch.visibility }),
    ...(patch.ignore_forks === undefined ? {} : { ignoreForks: patch.ignore_forks }),
    ...(patch.ignore_pull_requests === undefined ? {} : { ignorePullRequests: patch.ignore_pull_requests }),
    ...(patch.auto_cancel_pull_requests === undefined
      ? {}
      : { cancelPulls: patch.auto_cancel_pull_requests }),
    ...(patch.auto_cancel_pushes === undefined ? {} : { cancelPush: patch.auto_cancel_pushes }),
  };
}

/** Deletes svc's webhook with the token of the user who enabled the repository; failures are logged only. */
async function removeHook(
  deps: ChangeRepoDeps,
  repo: Repo,
  warn: (message: string, error: unknown) => void,
): Promise<void> {
  if (deps.provider === undefined) return;
  const owner = await deps.users.find(repo.userId);
  if (owner === undefined || owner.scmToken === '') return;
  try {
    await deps.provider.deleteHook(
      scmTokenOf(owner),
      { namespace: repo.namespace, name: repo.name },
      webhookUrl(deps.address),
    );
  } catch (error) {
    warn('disabling: the webhook at the git provider could not be removed', error);
  }
}
