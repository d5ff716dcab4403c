import type { PermStore } from '../../core/perm.js';
import type { NewRepo, Repo, RepoStore, RepoWithPerm } from '../../core/repo.js';
import type { ScmProvider, ScmRepo } from '../../core/scm.js';
import type { User } from '../../core/user.js';
import { scmTokenOf } from '../auth/scm-token.js';
import { updateRepo } from './repo-update.js';

/** What repository synchronization needs. */
export interface RepoSyncDeps {
  readonly repos: Pick<RepoStore, 'find' | 'findUid' | 'findSlug' | 'create' | 'update' | 'listUser'>;
  readonly perms: Pick<PermStore, 'upsert' | 'delete'>;
  readonly provider: Pick<ScmProvider, 'name' | 'listRepos'>;
  /** SVC_REPOSITORY_FILTER: the accounts whose repositories are synchronized; empty means all. */
  readonly repositoryFilter: readonly string[];
  readonly now?: () => number;
}

/** A repository svc has not seen before: disabled, owned by no one, with Drone's defaults. */
const DEFAULTS = {
  userId: 0,
  active: false,
  configPath: '',
  trusted: false,
  protected: false,
  ignoreForks: false,
  ignorePullRequests: false,
  cancelPulls: false,
  cancelPush: false,
  cancelRunning: false,
  forkIdTokens: false,
  throttle: 0,
  approval: 'forks',
  signingKey: '',
  timeout: 60,
  hookSecret: '',
} satisfies Partial<NewRepo>;

/**
 * Brings svc's copy of a user's repositories in line with the git provider: repositories are
 * matched by the provider's uid (so renames follow), never by a name alone; the user's permissions are
 * written for each, and removed from repositories the provider no longer lists for them.
 */
export class RepoSync {
  readonly #deps: RepoSyncDeps;
  readonly #now: () => number;

  constructor(deps: RepoSyncDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** Synchronizes every repository the user can see at the provider; returns them by slug. */
  async sync(user: User): Promise<RepoWithPerm[]> {
    const listed = await this.#deps.provider.listRepos(scmTokenOf(user));
    const filter = this.#deps.repositoryFilter.map((account) => account.toLowerCase());
    const wanted = listed.filter(
      (scm) => filter.length === 0 || filter.includes(scm.namespace.toLowerCase()),
    );
    const synced: RepoWithPerm[] = [];
    for (const scm of wanted) synced.push(await this.save(scm, user));
    const kept = new Set(synced.map(({ repo }) => repo.id));
    for (const { repo: stale } of await this.#deps.repos.listUser(user.id)) {
      if (!kept.has(stale.id)) await this.#deps.perms.delete(user.id, stale.id);
    }
    return synced.sort((a, b) => a.repo.slug.localeCompare(b.repo.slug));
  }

  /** Stores one repository as the provider describes it, with the user's permissions on it. */
  async save(scm: ScmRepo, user: User): Promise<RepoWithPerm> {
    const now = this.#now();
    const fields = {
      uid: scm.uid,
      namespace: scm.namespace,
      namespaceUid: scm.namespaceUid,
      name: scm.name,
      slug: `${scm.namespace}/${scm.name}`,
      cloneUrl: scm.cloneUrl,
      cloneUrlSsh: scm.cloneUrlSsh,
      link: scm.link,
      defaultBranch: scm.defaultBranch,
      private: scm.private,
      visibility: scm.visibility,
    };
    const existing = await this.#recordOf(scm);
    let repo: Repo;
    if (existing === undefined) {
      repo = await this.#deps.repos.create({
        ...DEFAULTS,
        ...fields,
        scm: this.#deps.provider.name,
        synced: now,
      });
    } else if (differs(existing, fields)) {
      repo = await updateRepo(this.#deps.repos, existing, (current) => ({
        ...current,
        ...fields,
        synced: now,
      }));
    } else {
      repo = existing;
    }
    const perm = await this.#deps.perms.upsert({
      userId: user.id,
      repoId: repo.id,
      ...scm.perm,
      synced: now,
    });
    return { repo, perm };
  }

  /**
   * The record of the provider's repository: the one that holds its uid (whatever its name, so
   * renames follow), or one under its name that has no uid. A record under its name that holds
   * another uid belongs to another repository — deleted, or renamed away, and the name taken again
   * — so it never becomes this one's: it moves aside with its secrets and settings.
   */
  async #recordOf(scm: ScmRepo): Promise<Repo | undefined> {
    const own = await this.#deps.repos.findUid(scm.uid);
    if (own?.namespace === scm.namespace && own.name === scm.name) return own;
    const holder = await this.#deps.repos.findSlug(scm.namespace, scm.name);
    if (holder === undefined || holder.id === own?.id) return own;
    if (own === undefined && holder.uid === '') return holder;
    await this.#moveAside(holder);
    return own;
  }

  /**
   * Renames a record that lost its name to another repository to `<name>~stale-<id>`: out of the
   * way, but kept (with its builds, secrets and keys) for an administrator to repair or delete.
   * If its repository was only renamed, its own next sync finds it by uid and names it again.
   */
  async #moveAside(stale: Repo): Promise<void> {
    await updateRepo(this.#deps.repos, stale, (current) => {
      const name = `${current.name}~stale-${current.id}`;
      return { ...current, name, slug: `${current.namespace}/${name}` };
    });
  }
}

function differs(repo: Repo, fields: Partial<Repo>): boolean {
  return Object.entries(fields).some(([key, value]) => repo[key as keyof Repo] !== value);
}
