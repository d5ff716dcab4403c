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
import type { BitbucketServerClient } from './client.js';
import { repoPath } from './convert.js';
import { BITBUCKET_SERVER } from './errors.js';
import { API } from './options.js';

/** A `RestPath`: its `components` make the path (`toString` is not in the REST reference's schema). */
const pathSchema = z.object({ components: z.array(z.string()) });

/** A `RestChange`: ADD, MODIFY, DELETE, COPY or MOVE; a move or copy also has the path it came from. */
const changeSchema = z.object({
  type: z.string().optional(),
  path: pathSchema,
  srcPath: pathSchema.nullish(),
});

/** The one page a pull request's changes come in. */
const pullChangesSchema = z.object({
  values: z.array(changeSchema),
  isLastPage: z.boolean(),
  limit: z.number().optional(),
});

/** Changes a page: the servers' default maximum (`page.max.changes`), which larger limits are cut to. */
const CHANGES_PAGE = 1000;

const namesOf = (changes: readonly z.infer<typeof changeSchema>[]) =>
  knownFiles(
    changes.flatMap((change) => [change.path.components.join('/'), change.srcPath?.components.join('/')]),
  );

/**
 * The files of a push or a pull request on Bitbucket Server and Data Center.
 *
 * A push: `GET /rest/api/1.0/projects/{key}/repos/{slug}/compare/changes?from={after}&to={before}`,
 * "the file changes available in the from commit but not in the to commit", every page (`start`,
 * `limit` 1,000, `nextPageStart` until `isLastPage`) up to 3,000 files. A pull request:
 * `GET …/pull-requests/{id}/changes`, which the reference says is not paged: one page of at most the
 * server's maximum; a page that is not the last (or a full one) left changes out, so the list is
 * not known. Moves give both paths. Not known either: a push that created its branch or whose
 * `before` the server does not have (404 NoSuchCommitException).
 */
export async function bitbucketServerChangedFiles(
  client: BitbucketServerClient,
  token: string,
  repo: ScmRepoRef,
  change: ScmChange,
): Promise<ScmChangedFiles> {
  if (change.kind === 'pull') {
    const id = encodeURIComponent(String(change.number));
    const path = `${API}${repoPath(repo)}/pull-requests/${id}/changes?withComments=false&limit=${CHANGES_PAGE}`;
    const page = await client.json(token, 'GET', path, pullChangesSchema);
    if (!page.isLastPage || page.values.length >= (page.limit ?? CHANGES_PAGE))
      return {
        known: false,
        reason: `${BITBUCKET_SERVER} lists only ${page.values.length} changes of pull request #${change.number} (its changes come in one page)`,
      };
    return namesOf(page.values);
  }
  if (createdBranch(change.before)) return branchCreated();
  const query = `from=${encodeURIComponent(change.after)}&to=${encodeURIComponent(change.before)}`;
  try {
    const changes = await client.list(
      token,
      `${API}${repoPath(repo)}/compare/changes?${query}`,
      changeSchema,
      {
        limit: CHANGES_PAGE,
        upTo: MAX_CHANGED_FILES,
      },
    );
    if (changes.length > MAX_CHANGED_FILES) return tooManyFiles(BITBUCKET_SERVER, 'the push');
    return namesOf(changes);
  } catch (error) {
    if (error instanceof SvcError && (error.code === 'NOT_FOUND' || error.code === 'INVALID_INPUT'))
      return cannotCompare(BITBUCKET_SERVER, change.before, change.after);
    throw error;
  }
}
