import { z } from 'zod';
import type { SystemEvents } from '../../../core/events.js';
import { repoFilePathProblem } from '../../../core/pipeline-path.js';
import { ForbiddenError, InvalidInputError } from '../../../core/errors.js';
import { APPROVAL_POLICIES, type Repo, type RepoStore } from '../../../core/repo.js';
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
  readonly repos: Pick<RepoStore, 'find' | 'update' | 'setCounter'>;
  readonly users: Pick<UserStore, 'find'>;
  /** Removes the provider webhook on disable; undefined without a git provider. */
  readonly provider: Pick<ScmProvider, 'deleteHook'> | undefined;
  readonly address: HookAddress;
  /** Told `repo:updated` and `repo:disabled` (global webhooks). */
  readonly events?: SystemEvents | undefined;
}

/**
 * Drone's repository patch: every field optional. Drone's clients send the auto-cancel settings
 * under two names each (`auto_cancel_pushes` or `cancel_push`, …): both are read. `trusted`,
 * `timeout`, `throttle` and `counter` are for svc administrators, as in Drone.
 */
const RepoPatch = z
  .object({
    config_path: z.string().superRefine((path, ctx) => {
      // '' is "the default files" (.svc.yml, then .drone.yml).
      const problem = path === '' ? undefined : repoFilePathProblem(path);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `"${path}" ${problem}` });
    }),
    protected: z.boolean(),
    trusted: z.boolean(),
    timeout: z
      .number()
      .int()
      .min(1)
      .max(24 * 60),
    throttle: z.number().int().min(0).max(1000),
    counter: z.number().int().min(0).max(2_147_483_647),
    visibility: z.enum(['public', 'private', 'internal']),
    ignore_forks: z.boolean(),
    ignore_pull_requests: z.boolean(),
    auto_cancel_pull_requests: z.boolean(),
    cancel_pulls: z.boolean(),
    auto_cancel_pushes: z.boolean(),
    cancel_push: z.boolean(),
    auto_cancel_running: z.boolean(),
    cancel_running: z.boolean(),
    approval: z.enum(APPROVAL_POLICIES),
    fork_id_tokens: z.boolean(),
  })
  .partial()
  .strict();

/** Settings only svc administrators may change: they decide what builds may do to the runners. */
const ADMIN_ONLY = ['trusted', 'timeout', 'throttle', 'counter'] as const;

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
        const restricted = ADMIN_ONLY.filter((field) => body[field] !== undefined);
        if (restricted.length > 0 && !principal.user.admin) {
          throw new ForbiddenError(`only svc administrators may change ${restricted.join(', ')}`);
        }
        if (body.counter !== undefined && !(await deps.repos.setCounter(repo.id, body.counter))) {
          throw new InvalidInputError(`counter: build numbers above ${body.counter} are taken already`);
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
    ...(patch.throttle === undefined ? {} : { throttle: patch.throttle }),
    ...(patch.approval === undefined ? {} : { approval: patch.approval }),
    ...(patch.fork_id_tokens === undefined ? {} : { forkIdTokens: patch.fork_id_tokens }),
    ...either('cancelPulls', patch.auto_cancel_pull_requests, patch.cancel_pulls),
    ...either('cancelPush', patch.auto_cancel_pushes, patch.cancel_push),
    ...either('cancelRunning', patch.auto_cancel_running, patch.cancel_running),
  };
}

/** A setting given under either of its two names (the first wins when both are given). */
function either<K extends keyof Repo>(key: K, value: boolean | undefined, alias: boolean | undefined) {
  const given = value ?? alias;
  return given === undefined ? {} : { [key]: given };
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
