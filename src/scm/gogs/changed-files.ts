import type { ScmChangedFiles } from '../../core/scm.js';

/**
 * Gogs' API v1 has no call that lists the files of a push or a pull request: no compare endpoint,
 * no pull request API, and its commits (`GET /repos/{o}/{r}/commits/{sha}`, the only commit
 * endpoints besides a list without files) carry no files (gogs/docs-api; the routes of
 * internal/route/api/v1/api.go). Every change is answered with that reason, so that a build's
 * paths conditions say why they held.
 */
export function gogsChangedFiles(): ScmChangedFiles {
  return {
    known: false,
    reason:
      "Gogs' API has no compare or changed-files endpoint (its commits list no files, and it has no pull request API)",
  };
}
