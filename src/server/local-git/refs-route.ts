import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../core/errors.js';
import type { ForgeStatus } from '../../scm/local/forge-state.js';
import type { LocalGitProvider } from '../../scm/local/provider.js';
import type { CallerAccount } from './caller-account.js';

/** Branches and tags a page shows; a local host rarely has more, and the newest come first. */
const REFS_SHOWN = 50;

/** One branch or tag as `GET /api/local/repos/:owner/:name/refs` answers it. */
export interface LocalRefView {
  ref: string;
  name: string;
  kind: 'branch' | 'tag';
  sha: string;
  subject: string;
  /** The newest status of each context the commit has (what svc reported), newest first. */
  statuses: { context: string; state: string; description: string; target_url: string; updated: number }[];
}

/** The newest status of each context, newest first: the ones a provider shows for the commit. */
export function latestByContext(statuses: readonly ForgeStatus[]): ForgeStatus[] {
  // The list is in the order the statuses came; re-adding a context moves it to the end.
  const latest = new Map<string, ForgeStatus>();
  for (const status of statuses) {
    latest.delete(status.context);
    latest.set(status.context, status);
  }
  return [...latest.values()].reverse();
}

/**
 * `GET /api/local/repos/:owner/:name/refs`: the repository's branches and tags (newest first), each
 * with its commit and the commit statuses the built-in provider stored for it — what GitHub shows as
 * the checks of a commit. Readable by whoever may read the repository.
 */
export function localRefsRoute(
  app: FastifyInstance,
  provider: LocalGitProvider,
  accountOf: CallerAccount,
): void {
  app.get('/api/local/repos/:owner/:name/refs', async (request): Promise<LocalRefView[]> => {
    const account = await accountOf(request);
    const { owner, name } = request.params as { owner: string; name: string };
    const repo = provider.state.repo(owner, name);
    // Someone who may not read it learns nothing, not even that it exists.
    if (repo === undefined || provider.roleOf(account, repo) === undefined)
      throw new NotFoundError(`repository ${owner}/${name}`);
    const git = provider.repository(repo);
    if (!git.exists()) return [];
    const refs = await git.namedCommits(REFS_SHOWN);
    return refs.map(({ ref, sha, subject }) => {
      const branch = ref.startsWith('refs/heads/');
      return {
        ref,
        name: ref.replace(/^refs\/(heads|tags)\//, ''),
        kind: branch ? 'branch' : 'tag',
        sha,
        subject,
        statuses: latestByContext(provider.state.statuses(repo.id, sha)).map((s) => ({
          context: s.context,
          state: s.state,
          description: s.description,
          target_url: s.targetUrl,
          updated: s.updated,
        })),
      };
    });
  });
}
