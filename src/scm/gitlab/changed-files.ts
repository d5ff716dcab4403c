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
import type { GitLabClient } from './client.js';
import { GITLAB } from './errors.js';
import { projectPath } from './paths.js';

/** A file of a compare or a merge request diff (docs: api/repositories, api/merge_requests): both names. */
const diffSchema = z.object({ old_path: z.string(), new_path: z.string() });

const compareSchema = z.object({
  diffs: z.array(diffSchema),
  /** True when the diff passed GitLab's diff limits or timed out: `diffs` may be incomplete. */
  compare_timeout: z.boolean().nullish(),
});

/** `changes_count` is a string ("12", or "1000+" past the diff limits); null until GitLab computed the diff. */
const mergeRequestSchema = z.object({ changes_count: z.string().nullish() });

const namesOf = (diffs: readonly z.infer<typeof diffSchema>[]) =>
  knownFiles(diffs.flatMap((diff) => [diff.old_path, diff.new_path]));

/**
 * The files of a push (`GET /projects/:id/repository/compare?from=&to=&straight=true`: the two
 * commits' trees compared, as `git diff before after`; one answer, not paged) or of a merge request
 * (`GET …/merge_requests/:iid/diffs`, every page). Not known: a push that created its branch or whose
 * `before` GitLab does not have (404 "Ref Not Found"), and a diff past GitLab's diff limits (1,000
 * files by default): the compare then says `compare_timeout`, the merge request a `changes_count`
 * ending in `+`.
 */
export async function gitLabChangedFiles(
  client: GitLabClient,
  token: string,
  repo: ScmRepoRef,
  change: ScmChange,
): Promise<ScmChangedFiles> {
  if (change.kind === 'pull') return mergeRequestFiles(client, token, repo, change.number);
  if (createdBranch(change.before)) return branchCreated();
  const query = `from=${encodeURIComponent(change.before)}&to=${encodeURIComponent(change.after)}&straight=true`;
  try {
    const path = `${projectPath(repo)}/repository/compare?${query}`;
    const compared = await client.json(token, 'GET', path, compareSchema);
    if (compared.compare_timeout === true)
      return {
        known: false,
        reason: `GitLab's compare passed its diff limits or timed out: it listed ${compared.diffs.length} changed files and stopped`,
      };
    return namesOf(compared.diffs);
  } catch (error) {
    if (error instanceof SvcError && (error.code === 'NOT_FOUND' || error.code === 'INVALID_INPUT'))
      return cannotCompare(GITLAB, change.before, change.after);
    throw error;
  }
}

async function mergeRequestFiles(
  client: GitLabClient,
  token: string,
  repo: ScmRepoRef,
  iid: number,
): Promise<ScmChangedFiles> {
  const path = `${projectPath(repo)}/merge_requests/${encodeURIComponent(String(iid))}`;
  const { changes_count: count } = await client.json(token, 'GET', path, mergeRequestSchema);
  if (count === null || count === undefined)
    return { known: false, reason: `GitLab has not computed the changes of merge request !${iid} yet` };
  if (count.endsWith('+'))
    return {
      known: false,
      reason: `merge request !${iid} changes more files than GitLab's diff limits let it list (${count})`,
    };
  const diffs = await client.list(token, `${path}/diffs`, diffSchema, MAX_CHANGED_FILES);
  if (diffs.length > MAX_CHANGED_FILES) return tooManyFiles(GITLAB, `merge request !${iid}`);
  return namesOf(diffs);
}
