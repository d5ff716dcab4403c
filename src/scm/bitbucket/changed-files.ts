import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import type { ScmChange, ScmChangedFiles, ScmRepoRef } from '../../core/scm.js';
import {
  branchCreated,
  cannotCompare,
  createdBranch,
  knownFiles,
  MAX_CHANGED_FILES,
  tooManyFiles,
} from '../changed-files.js';
import type { BitbucketClient } from './client.js';
import { BITBUCKET, BitbucketDiffTimeout } from './errors.js';
import { repoPath } from './hooks.js';

/**
 * A `diffstat` entry (Commits API): status added, removed, modified or renamed, and the file on
 * either side (`old` null for an added file, `new` null for a removed one).
 */
const diffstatSchema = z.object({
  status: z.string().optional(),
  old: z.object({ path: z.string() }).nullish(),
  new: z.object({ path: z.string() }).nullish(),
});

/** "The default value is 500 with 5000 being the maximum allowed value" (paginated_diffstats). */
const DIFFSTAT_PAGELEN = 500;

/**
 * The files of a push or a pull request on Bitbucket Cloud, from diffstats, every page (`next`).
 * A push: `GET /repositories/{ws}/{slug}/diffstat/{after}..{before}?topic=false`, the first commit
 * being the one with the changes (the opposite of git's order) and `topic=false` asking for git's
 * plain diff of the two. A pull request: `GET …/pullrequests/{id}/diffstat`, which redirects to
 * the diffstat of its source and destination. Renames are detected (Bitbucket's default): both
 * names come. Not known: a push that created its branch or whose `before` Bitbucket does not have
 * (404), a diffstat that timed out (555), more than 3,000 files.
 */
export async function bitbucketChangedFiles(
  client: BitbucketClient,
  token: string,
  repo: ScmRepoRef,
  change: ScmChange,
): Promise<ScmChangedFiles> {
  if (change.kind === 'push' && createdBranch(change.before)) return branchCreated();
  const what = change.kind === 'pull' ? `pull request #${change.number}` : 'the push';
  const path =
    change.kind === 'pull'
      ? `${repoPath(repo)}/pullrequests/${encodeURIComponent(String(change.number))}/diffstat`
      : `${repoPath(repo)}/diffstat/${encodeURIComponent(change.after)}..${encodeURIComponent(change.before)}?topic=false`;
  let stats: z.infer<typeof diffstatSchema>[];
  try {
    stats = await client.list(token, path, diffstatSchema, {
      pagelen: DIFFSTAT_PAGELEN,
      upTo: MAX_CHANGED_FILES,
    });
  } catch (error) {
    if (
      error instanceof BitbucketDiffTimeout ||
      (error instanceof Error && error.cause instanceof BitbucketDiffTimeout)
    )
      return { known: false, reason: `${BITBUCKET} timed out computing the diffstat of ${what}` };
    if (
      change.kind === 'push' &&
      error instanceof SvcError &&
      (error.code === 'NOT_FOUND' || error.code === 'INVALID_INPUT')
    )
      return cannotCompare(BITBUCKET, change.before, change.after);
    throw error;
  }
  if (stats.length > MAX_CHANGED_FILES) return tooManyFiles(BITBUCKET, what);
  return knownFiles(stats.flatMap((stat) => [stat.old?.path, stat.new?.path]));
}
