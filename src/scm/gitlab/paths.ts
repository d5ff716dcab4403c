/** `/projects/<namespace%2Fname>`: GitLab takes a project's full path, URL-encoded, as its id. */
export function projectPath(repo: { namespace: string; name: string }): string {
  return `/projects/${encodeURIComponent(`${repo.namespace}/${repo.name}`)}`;
}

/** A file path or branch name as one path segment (GitLab wants `/` as `%2F`). */
export function segment(value: string): string {
  return encodeURIComponent(value.replace(/^\/+/, ''));
}
