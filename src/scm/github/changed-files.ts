import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import type { ScmChange, ScmChangedFiles, ScmRepoRef } from '../../core/scm.js';
import { branchCreated, cannotCompare, createdBranch, knownFiles } from '../changed-files.js';
import { repoPath } from '../paths.js';
import type { GitHubClient } from './client.js';

/** A changed file as the compare and pull request files endpoints list it (docs: rest/commits/commits, rest/pulls/pulls). */
const changedFileSchema = z.object({
  filename: z.string(),
  status: z.string().optional(),
  previous_filename: z.string().optional(),
});

const compareSchema = z.object({ files: z.array(changedFileSchema).optional() });

/** "The response includes a maximum of 300 files" (compare two commits): more may be left out. */
const COMPARE_MAX_FILES = 300;
/** "Responses include a maximum of 3000 files" (list pull request files). */
const PULL_MAX_FILES = 3000;

const names = (files: readonly z.infer<typeof changedFileSchema>[]): ScmChangedFiles =>
  knownFiles(files.flatMap((file) => [file.filename, file.previous_filename]));

/**
 * The files of a push (`GET /repos/{o}/{r}/compare/{before}...{after}`, one page: GitHub pages
 * its commits, not its files, and lists 300 files at most) or of a pull request
 * (`GET /repos/{o}/{r}/pulls/{n}/files`, every page, 3,000 files at most). A list at the limit
 * may be cut short, so it is not known; nor are the files of a push that created its branch.
 */
export async function gitHubChangedFiles(
  client: GitHubClient,
  token: string,
  repo: ScmRepoRef,
  change: ScmChange,
): Promise<ScmChangedFiles> {
  if (change.kind === 'pull') {
    const files = await client.list(
      token,
      `${repoPath(repo)}/pulls/${change.number}/files`,
      changedFileSchema,
    );
    if (files.length >= PULL_MAX_FILES)
      return { known: false, reason: `GitHub lists at most ${PULL_MAX_FILES} files of a pull request` };
    return names(files);
  }
  if (createdBranch(change.before)) return branchCreated();
  const path = `${repoPath(repo)}/compare/${encodeURIComponent(change.before)}...${encodeURIComponent(change.after)}`;
  try {
    const compared = await client.json(token, 'GET', path, compareSchema);
    const files = compared.files ?? [];
    if (files.length >= COMPARE_MAX_FILES)
      return { known: false, reason: `GitHub's compare lists at most ${COMPARE_MAX_FILES} changed files` };
    return names(files);
  } catch (error) {
    // A forced push's earlier commit may be gone: nothing to compare with, said rather than guessed.
    if (error instanceof SvcError && (error.code === 'NOT_FOUND' || error.code === 'INVALID_INPUT'))
      return cannotCompare('GitHub', change.before, change.after);
    throw error;
  }
}
