import { StaleVersionError } from '../../core/errors.js';
import type { Repo, RepoStore } from '../../core/repo.js';

/**
 * Applies `change` to the stored repository, re-reading and re-applying once when someone else wrote
 * it in between (repository rows are optimistic-locked), so a concurrent sync never loses an enable.
 */
export async function updateRepo(
  repos: Pick<RepoStore, 'find' | 'update'>,
  repo: Repo,
  change: (current: Repo) => Repo,
): Promise<Repo> {
  try {
    return await repos.update(change(repo));
  } catch (error) {
    if (!(error instanceof StaleVersionError)) throw error;
    const fresh = await repos.find(repo.id);
    if (fresh === undefined) throw error;
    return repos.update(change(fresh));
  }
}
