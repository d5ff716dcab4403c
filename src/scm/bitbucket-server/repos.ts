import type { ScmRepo } from '../../core/scm.js';
import type { BitbucketServerClient } from './client.js';
import { repoPath, toScmRepo, type Permission } from './convert.js';
import { API } from './options.js';
import { branchSchema, repoSchema, type BitbucketServerRepo } from './schemas.js';
import { SvcError } from '../../core/errors.js';

/** Default branches are read this many repositories at a time. */
const CONCURRENCY = 8;

/**
 * Every repository the user can read, with their permissions: Bitbucket's repository objects carry
 * none, so `GET /repos` is read three times, filtered by REPO_READ, REPO_WRITE and REPO_ADMIN. Nor
 * do they name the default branch (before 8.x): it is read per repository.
 */
export async function listRepos(
  client: BitbucketServerClient,
  token: string,
  web: string,
): Promise<ScmRepo[]> {
  const [readable, writable, administered] = await Promise.all(
    (['REPO_READ', 'REPO_WRITE', 'REPO_ADMIN'] as const).map((permission) =>
      client.list(token, `${API}/repos?permission=${permission}`, repoSchema),
    ),
  );
  const write = new Set(writable?.map((repo) => repo.id));
  const admin = new Set(administered?.map((repo) => repo.id));
  const repos = readable ?? [];
  const branches = await mapLimited(repos, CONCURRENCY, (repo) => defaultBranch(client, token, repo));
  return repos.map((repo, i) =>
    toScmRepo(
      repo,
      { read: true, write: write.has(repo.id) || admin.has(repo.id), admin: admin.has(repo.id) },
      branches[i] ?? '',
      web,
    ),
  );
}

/**
 * The user's permission on one repository they can read: whether `GET /repos` lists it (by its
 * project and name) among the repositories they administer, or may write to.
 */
export async function readPermission(
  client: BitbucketServerClient,
  token: string,
  repo: BitbucketServerRepo,
): Promise<Permission> {
  const listedWith = async (permission: 'REPO_WRITE' | 'REPO_ADMIN') => {
    const query = `projectkey=${encodeURIComponent(repo.project.key)}&name=${encodeURIComponent(repo.name)}`;
    const found = await client.list(token, `${API}/repos?${query}&permission=${permission}`, repoSchema);
    return found.some((candidate) => candidate.id === repo.id);
  };
  if (await listedWith('REPO_ADMIN')) return { read: true, write: true, admin: true };
  return { read: true, write: await listedWith('REPO_WRITE'), admin: false };
}

/** `GET …/branches/default`; none (404) for an empty repository. */
export async function defaultBranch(
  client: BitbucketServerClient,
  token: string,
  repo: BitbucketServerRepo,
): Promise<string> {
  try {
    const path = `${API}${repoPath({ namespace: repo.project.key, name: repo.slug })}/branches/default`;
    return (await client.json(token, 'GET', path, branchSchema)).displayId;
  } catch (error) {
    if (error instanceof SvcError && error.code === 'NOT_FOUND') return '';
    throw error;
  }
}

/** `map` with at most `limit` calls running at once, results in order. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  map: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await map(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
