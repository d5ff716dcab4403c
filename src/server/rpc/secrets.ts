import type { Build } from '../../core/build.js';
import { comesFromFork } from '../../core/fork.js';
import type { Repo } from '../../core/repo.js';
import type { Secret, SecretStore } from '../../core/secret.js';
import type { Stage } from '../../core/stage.js';

/** The build's change comes from another repository than the one it builds: a fork's pull request. */
export function isFromFork(repo: Repo, build: Build): boolean {
  return comesFromFork(build, repo.slug);
}

/**
 * The secrets a build may use: the global ones, those of the repository's namespace, those of the
 * repository — a name in a narrower scope hides the same name in a wider one. As in Drone, secrets
 * are not exposed to pull requests by default: a pull request build gets only the secrets whose
 * `pull_request` flag ("allow pull requests") is set; `pull_request_push` does not expose a secret
 * by itself (Drone's server ignores it too). Every other event gets every secret. Builds of changes
 * from forks get none at all, whatever the flags: their code is not trusted with anything
 * (DESIGN.md "Security"). A secret bound to a deployment environment reaches only a stage that
 * deploys there and whose approvals were given (issue 35); for other stages it does not exist, so
 * a wider scope's secret of the same name is used instead.
 */
export async function secretsForBuild(
  secrets: Pick<SecretStore, 'list' | 'bindNamespace'>,
  repo: Repo,
  build: Build,
  stage?: Pick<Stage, 'deployment'>,
): Promise<Secret[]> {
  if (isFromFork(repo, build)) return [];
  const byName = new Map<string, Secret>();
  const add = (list: readonly Secret[]) => {
    for (const secret of list) if (reaches(secret, stage)) byName.set(secret.name, secret);
  };
  add(await secrets.list({ kind: 'global' }));
  add(await namespaceSecrets(secrets, repo));
  add(await secrets.list({ kind: 'repo', repoId: repo.id }));
  return [...byName.values()].filter((secret) => allowedFor(secret, build.event));
}

/**
 * The organization secrets of the repository's namespace — its namespace by the provider's id, not
 * only by name: a namespace deleted and registered again by someone else does not inherit them. A
 * secret not yet bound to an id (written before svc stored them, or before any repository of the
 * namespace was synchronized) is bound to this repository's namespace on first use.
 */
async function namespaceSecrets(
  secrets: Pick<SecretStore, 'list' | 'bindNamespace'>,
  repo: Repo,
): Promise<Secret[]> {
  const mine: Secret[] = [];
  for (const secret of await secrets.list({ kind: 'namespace', namespace: repo.namespace })) {
    if (secret.namespaceUid === repo.namespaceUid) mine.push(secret);
    else if (secret.namespaceUid === '' && (await secrets.bindNamespace(secret.id, repo.namespaceUid)))
      mine.push({ ...secret, namespaceUid: repo.namespaceUid });
  }
  return mine;
}

/** Whether the secret's flags let a build of this event have it. */
function allowedFor(secret: Secret, event: Build['event']): boolean {
  return event !== 'pull_request' || secret.pullRequest;
}

/** Whether an environment's secret reaches the stage: it deploys there, approved (or needing no approval). */
function reaches(secret: Secret, stage: Pick<Stage, 'deployment'> | undefined): boolean {
  if (secret.environment === '') return true;
  const deployment = stage?.deployment;
  return deployment?.environment === secret.environment && deployment.approved;
}
