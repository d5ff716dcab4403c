import type { Secret } from '../../../core/secret.js';

/**
 * A secret as Drone's API shows it: a repository secret with `repo_id`, an organization secret with
 * `namespace`. The value (`data`) is never part of it — no route ever returns a secret's value.
 */
export function secretJson(secret: Secret): Record<string, unknown> {
  const { scope } = secret;
  return {
    id: secret.id,
    ...(scope.kind === 'repo' ? { repo_id: scope.repoId } : {}),
    ...(scope.kind === 'namespace' ? { namespace: scope.namespace } : {}),
    name: secret.name,
    pull_request: secret.pullRequest,
    pull_request_push: secret.pullRequestPush,
    ...(secret.environment === '' ? {} : { environment: secret.environment }),
  };
}
