import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import type { ScmChange, ScmChangedFiles, ScmRepoRef } from '../../core/scm.js';
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

const NO_COMMIT = /^0+$/;

function names(files: readonly z.infer<typeof changedFileSchema>[]): string[] {
  const all = files.flatMap((file) =>
    file.previous_filename === undefined ? [file.filename] : [file.filename, file.previous_filename],
  );
  return [...new Set(all)].sort();
}

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
    return { known: true, files: names(files) };
  }
  if (NO_COMMIT.test(change.before) || change.before === '')
    return {
      known: false,
      reason: 'the push created the branch: there is no earlier commit to compare with',
    };
  const path = `${repoPath(repo)}/compare/${encodeURIComponent(change.before)}...${encodeURIComponent(change.after)}`;
  try {
    const compared = await client.json(token, 'GET', path, compareSchema);
    const files = compared.files ?? [];
    if (files.length >= COMPARE_MAX_FILES)
      return { known: false, reason: `GitHub's compare lists at most ${COMPARE_MAX_FILES} changed files` };
    return { known: true, files: names(files) };
  } catch (error) {
    // A forced push's earlier commit may be gone: nothing to compare with, said rather than guessed.
    if (error instanceof SvcError && (error.code === 'NOT_FOUND' || error.code === 'INVALID_INPUT'))
      return {
        known: false,
        reason: `GitHub cannot compare ${change.before.slice(0, 12)} with ${change.after.slice(0, 12)} (a forced push's earlier commit may be gone)`,
      };
    throw error;
  }
}
