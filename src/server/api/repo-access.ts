import type { Logger } from 'pino';
import { ForbiddenError, NotFoundError, SvcError, UnauthorizedError } from '../../core/errors.js';
import type { Perm, PermStore } from '../../core/perm.js';
import type { Repo, RepoStore } from '../../core/repo.js';
import type { ScmProvider } from '../../core/scm.js';
import type { Principal } from '../auth/authenticator.js';
import { scmTokenOf } from '../auth/scm-token.js';
import type { RepoSync } from './repo-sync.js';

/** What deciding access to a repository needs. */
export interface RepoAccessDeps {
  readonly repos: Pick<RepoStore, 'findSlug'>;
  readonly perms: Pick<PermStore, 'find' | 'upsert'>;
  /** Refreshes permissions older than an hour; undefined when no git provider is configured. */
  readonly provider: Pick<ScmProvider, 'findRepo'> | undefined;
  /** Stores a repository as the provider describes it, with the caller's permission (checkAtProvider). */
  readonly sync?: Pick<RepoSync, 'save'> | undefined;
  readonly logger: Logger;
  readonly now?: () => number;
}

/** What a request wants to do with a repository. */
export type Need = 'read' | 'write' | 'admin';

type Rights = Pick<Perm, 'read' | 'write' | 'admin'>;

/** Permissions are asked again from the provider when older than this. */
const PERM_MAX_AGE_MS = 60 * 60_000;

/** What the provider answers about a repository that means the caller has no rights on it now. */
const REFUSALS = new Set<string>(['NOT_FOUND', 'UNAUTHORIZED', 'FORBIDDEN']);
const NONE: Rights = { read: false, write: false, admin: false };
const ALL: Rights = { read: true, write: true, admin: true };

/**
 * Finds `{owner}/{name}` and checks that the caller may use it. Public repositories can be read by
 * anyone; otherwise the caller's permission decides (svc administrators may do everything). Someone
 * who may not even read a repository gets NOT_FOUND, as at the git providers, so that private
 * repository names do not leak; an anonymous caller gets UNAUTHORIZED, a reader lacking rights FORBIDDEN.
 */
export class RepoAccess {
  readonly #deps: RepoAccessDeps;
  readonly #now: () => number;

  constructor(deps: RepoAccessDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  async check(owner: string, name: string, principal: Principal | undefined, need: Need): Promise<Repo> {
    const repo = await this.#deps.repos.findSlug(owner, name);
    if (repo === undefined) throw new NotFoundError('repository');
    const isPublic = !repo.private && repo.visibility === 'public';
    if (need === 'read' && isPublic) return repo;
    if (principal === undefined) {
      throw new UnauthorizedError('log in or send an API token to use this repository');
    }
    const rights = await this.rights(repo, principal);
    if (rights[need]) return repo;
    if (!rights.read && !isPublic) throw new NotFoundError('repository');
    throw new ForbiddenError(`${need} access to ${repo.slug} is needed`);
  }

  /**
   * Like `check`, but the permission is asked afresh from the git provider with the caller's own
   * token, and the repository is stored (or refreshed) from what the provider says: for acts the
   * provider must allow now, such as enabling, which creates a webhook with the caller's token.
   * svc administrators are not special here; machine accounts (no provider token) cannot.
   */
  async checkAtProvider(
    owner: string,
    name: string,
    principal: Principal | undefined,
    need: Need,
  ): Promise<Repo> {
    const { provider, sync } = this.#deps;
    if (principal === undefined) {
      throw new UnauthorizedError('log in or send an API token to use this repository');
    }
    if (provider === undefined || sync === undefined) {
      throw new SvcError('INVALID_SETTINGS', 'no git provider is configured, so this cannot be done');
    }
    const { user } = principal;
    if (user.scmToken === '') {
      throw new ForbiddenError(
        `${user.login} has no git provider credentials (machine account): log in through the provider to do this`,
      );
    }
    const scm = await provider.findRepo(scmTokenOf(user), { namespace: owner, name });
    const { repo, perm } = await sync.save(scm, user);
    if (perm[need]) return repo;
    if (!perm.read) throw new NotFoundError('repository');
    throw new ForbiddenError(`${need} rights on ${repo.slug} at the git provider are needed`);
  }

  /** The caller's rights on the repository: stored, refreshed from the provider when stale. */
  async rights(repo: Repo, principal: Principal): Promise<Rights> {
    const user = principal.user;
    if (user.admin) return ALL;
    const stored = await this.#deps.perms.find(user.id, repo.id);
    const now = this.#now();
    const provider = this.#deps.provider;
    if (
      (stored !== undefined && now - stored.synced < PERM_MAX_AGE_MS) ||
      provider === undefined ||
      user.scmToken === ''
    ) {
      return stored ?? NONE;
    }
    try {
      const scm = await provider.findRepo(scmTokenOf(user), { namespace: repo.namespace, name: repo.name });
      return await this.#deps.perms.upsert({ userId: user.id, repoId: repo.id, ...scm.perm, synced: now });
    } catch (error) {
      // Not found, or the token refused (revoked grant, lost access): the stale rights end here,
      // else a revoked collaborator would keep them through svc's API token for ever.
      if (error instanceof SvcError && REFUSALS.has(error.code)) {
        this.#deps.logger.info({ repo: repo.slug, user: user.login, code: error.code }, 'rights ended');
        return this.#deps.perms.upsert({ userId: user.id, repoId: repo.id, ...NONE, synced: now });
      }
      // The provider is unreachable or rate-limited: the last known rights are the best guess.
      this.#deps.logger.warn({ err: error, repo: repo.slug, user: user.login }, 'cannot refresh permissions');
      return stored ?? NONE;
    }
  }
}
