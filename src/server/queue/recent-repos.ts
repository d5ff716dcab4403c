import type { Repo, RepoStore } from '../../core/repo.js';

/**
 * Repositories as read in the last `ttl` milliseconds, for the build listener: every stage update
 * tells it about the build with its repository, and a repository hardly ever changes, so one read
 * serves the stage updates of a short while instead of one read each. A repository that is gone
 * is not remembered.
 */
export class RecentRepos implements Pick<RepoStore, 'find'> {
  readonly #repos: Pick<RepoStore, 'find'>;
  readonly #ttl: number;
  readonly #now: () => number;
  readonly #recent = new Map<number, { repo: Promise<Repo | undefined>; until: number }>();

  constructor(repos: Pick<RepoStore, 'find'>, options: { ttl?: number; now?: () => number } = {}) {
    this.#repos = repos;
    this.#ttl = options.ttl ?? 1_000;
    this.#now = options.now ?? Date.now;
  }

  async find(id: number): Promise<Repo | undefined> {
    const now = this.#now();
    const recent = this.#recent.get(id);
    if (recent !== undefined && recent.until > now) return copy(await recent.repo);
    if (this.#recent.size > 1_000) {
      for (const [key, entry] of this.#recent) if (entry.until <= now) this.#recent.delete(key);
    }
    const repo = this.#repos.find(id);
    this.#recent.set(id, { repo, until: now + this.#ttl });
    try {
      const found = await repo;
      if (found === undefined) this.#forget(id, repo);
      return copy(found);
    } catch (error) {
      this.#forget(id, repo);
      throw error;
    }
  }

  #forget(id: number, repo: Promise<Repo | undefined>): void {
    if (this.#recent.get(id)?.repo === repo) this.#recent.delete(id);
  }
}

/** Every caller gets its own object: listeners may change what they are given. */
function copy(repo: Repo | undefined): Repo | undefined {
  return repo === undefined ? undefined : { ...repo };
}
