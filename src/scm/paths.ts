/** `/repos/{owner}/{repo}`, each part escaped. */
export function repoPath(repo: { namespace: string; name: string }): string {
  return `/repos/${encodeURIComponent(repo.namespace)}/${encodeURIComponent(repo.name)}`;
}

/** A repository file path for the contents API, each segment escaped. */
export function filePath(path: string): string {
  return path
    .replace(/^\/+/, '')
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}
