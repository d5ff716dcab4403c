import type { Build } from '../../core/build.js';
import type { Repo } from '../../core/repo.js';
import type { Secret, SecretStore } from '../../core/secret.js';

/** The build's change comes from another repository than the one it builds: a fork's pull request. */
export function isFromFork(repo: Repo, build: Build): boolean {
  return build.sourceRepo !== '' && build.sourceRepo.toLowerCase() !== repo.slug.toLowerCase();
}

/**
 * The secrets a build may use: the global ones, those of the repository's namespace, those of the
 * repository — a name in a narrower scope hides the same name in a wider one. Pull requests get
 * only secrets marked for pull requests, and builds of changes from forks get none at all (their
 * code is not trusted with anything; DESIGN.md "Security").
 */
export async function secretsForBuild(
  secrets: Pick<SecretStore, 'list'>,
  repo: Repo,
  build: Build,
): Promise<Secret[]> {
  if (isFromFork(repo, build)) return [];
  const byName = new Map<string, Secret>();
  const scopes = [
    { kind: 'global' as const },
    { kind: 'namespace' as const, namespace: repo.namespace },
    { kind: 'repo' as const, repoId: repo.id },
  ];
  for (const scope of scopes) for (const secret of await secrets.list(scope)) byName.set(secret.name, secret);
  const all = [...byName.values()];
  return build.event === 'pull_request' ? all.filter((secret) => secret.pullRequest) : all;
}
