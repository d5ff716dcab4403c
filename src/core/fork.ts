/**
 * Whether a build's change comes from a fork: a pull request whose source repository is another
 * one than the repository it builds, or is gone (deleted; the providers then send no source, and
 * svc stores an empty one). A missing source never means "the same repository": it would give a
 * deleted fork's pull request the secrets, inline secrets and runner secrets of the repository.
 * Other events always come from the repository itself; the same names in another letter case are
 * the same repository.
 */
export function comesFromFork(
  build: { readonly event: string; readonly sourceRepo: string },
  repoSlug: string,
): boolean {
  if (build.sourceRepo === '') return build.event === 'pull_request';
  return build.sourceRepo.toLowerCase() !== repoSlug.toLowerCase();
}
