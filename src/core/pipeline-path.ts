/**
 * What is wrong with a repository file path that svc puts into a provider's URL or under a folder of
 * its own (the pipeline file of `config_path`, a file it imports), or undefined when it is a plain
 * relative path inside the repository. Dot segments are refused, not escaped: URL parsers resolve
 * `..` and its escaped forms (`%2e%2e`) alike, so `ci/../../other` would make svc call another
 * endpoint of the provider with the repository owner's token, or write outside its folder.
 */
export function repoFilePathProblem(path: string): string | undefined {
  if (path === '') return 'is empty; expected a file path inside the repository, e.g. .drone.yml';
  if (path.length > MAX_REPO_FILE_PATH)
    return `is ${path.length} characters long; expected at most ${MAX_REPO_FILE_PATH}`;
  // eslint-disable-next-line no-control-regex -- control characters are what this looks for
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'contains a control character';
  if (path.includes('\\')) return 'contains "\\"; expected "/" between folders';
  if (path.startsWith('/')) return 'starts with "/"; expected a path relative to the repository root';
  const segments = path.split('/');
  if (segments.includes('')) return 'has an empty folder name ("//", or a "/" at the end)';
  if (segments.some((segment) => segment === '.' || segment === '..'))
    return 'has a "." or ".." folder; expected a path inside the repository';
  return undefined;
}

export const MAX_REPO_FILE_PATH = 255;
