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
import { repoPath } from '../paths.js';
import type { GiteaClient } from './client.js';
import { GITEA } from './errors.js';

/** A commit of a compare with the files it touched (`CommitAffectedFiles`: added, removed, modified). */
const compareSchema = z.object({
  commits: z.array(
    z.object({
      sha: z.string(),
      // Null or absent when the server does not list a compare's files (before Gitea 1.22).
      files: z.array(z.object({ filename: z.string() })).nullish(),
    }),
  ),
});

/**
 * A file of a pull request (`ChangedFile`): status added, deleted, changed, renamed, copied or
 * unchanged; a renamed one also has the name it had (older servers leave it out).
 */
const changedFileSchema = z.object({
  filename: z.string(),
  status: z.string().optional(),
  previous_filename: z.string().optional(),
});

/**
 * The files of a push or a pull request on Gitea and Forgejo.
 *
 * A push: `GET /repos/{o}/{r}/compare/{before}...{after}` lists every commit `after` adds (not
 * paged) with the files each touched, found without renames (a rename is a removal and an addition,
 * so both names come); their union is the list. A file changed and changed back is in it too: a
 * path condition runs where git's diff of the two commits would not, never the other way round.
 * A pull request: `GET …/pulls/{index}/files`, every page (`page`, `limit` 50, the Link header).
 * Not known: a push that created its branch or whose `before` Gitea cannot find (404), a server
 * without the compare endpoint (before 1.22) or whose compare lists no files or whose pull request files name no earlier path of a rename, and
 * more than 3,000 files of a pull request.
 */
export async function giteaChangedFiles(
  client: GiteaClient,
  token: string,
  repo: ScmRepoRef,
  change: ScmChange,
): Promise<ScmChangedFiles> {
  if (change.kind === 'pull') {
    const path = `${repoPath(repo)}/pulls/${encodeURIComponent(String(change.number))}/files`;
    const files = await client.list(token, path, changedFileSchema, MAX_CHANGED_FILES);
    if (files.length > MAX_CHANGED_FILES) return tooManyFiles(GITEA, `pull request #${change.number}`);
    if (files.some((file) => file.status === 'renamed' && !file.previous_filename))
      return { known: false, reason: `${GITEA} does not name the earlier path of a renamed file` };
    return knownFiles(files.flatMap((file) => [file.filename, file.previous_filename]));
  }
  if (createdBranch(change.before)) return branchCreated();
  const range = `${encodeURIComponent(change.before)}...${encodeURIComponent(change.after)}`;
  let compared: z.infer<typeof compareSchema>;
  try {
    // Signatures are not what svc asks about: their verification is skipped.
    const path = `${repoPath(repo)}/compare/${range}?verification=false`;
    compared = await client.json(token, 'GET', path, compareSchema);
  } catch (error) {
    if (!(error instanceof SvcError) || (error.code !== 'NOT_FOUND' && error.code !== 'INVALID_INPUT'))
      throw error;
    // Servers before Gitea 1.22 have no compare endpoint: a 404 with `before` still there says so.
    if (await hasCommit(client, token, repo, change.before))
      return { known: false, reason: `this ${GITEA} server has no compare API (Gitea 1.22 added it)` };
    return cannotCompare(GITEA, change.before, change.after);
  }
  if (compared.commits.some((commit) => commit.files === null || commit.files === undefined))
    return { known: false, reason: `${GITEA}'s compare does not list the files of the pushed commits` };
  return knownFiles(compared.commits.flatMap((commit) => (commit.files ?? []).map((file) => file.filename)));
}

/** Whether Gitea has the commit `sha` (`GET …/git/commits/{sha}`, without its stats, signature or files). */
async function hasCommit(
  client: GiteaClient,
  token: string,
  repo: ScmRepoRef,
  sha: string,
): Promise<boolean> {
  const path = `${repoPath(repo)}/git/commits/${encodeURIComponent(sha)}?stat=false&verification=false&files=false`;
  try {
    await client.raw(token, path);
    return true;
  } catch (error) {
    if (error instanceof SvcError && (error.code === 'NOT_FOUND' || error.code === 'INVALID_INPUT'))
      return false;
    throw error;
  }
}
