import { InvalidInputError } from '../core/errors.js';

/** `/repos/{owner}/{repo}`, each part escaped. */
export function repoPath(repo: { namespace: string; name: string }): string {
  return `/repos/${encodeURIComponent(repo.namespace)}/${encodeURIComponent(repo.name)}`;
}

/**
 * A repository file path (or branch name) for a provider's URL, each segment escaped. A `.` or `..`
 * segment is refused: escaping does not stop a URL parser from resolving it (`%2e%2e` counts as `..`),
 * which would send the request, with the owner's token, to another endpoint.
 */
export function filePath(path: string): string {
  const segments = path.replace(/^\/+/, '').split('/');
  if (segments.some((segment) => segment === '.' || segment === '..'))
    throw new InvalidInputError(
      `file path "${path}": has a "." or ".." folder; expected a path inside the repository`,
    );
  return segments.map((segment) => encodeURIComponent(segment)).join('/');
}
