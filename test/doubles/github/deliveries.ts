import type { Env } from './env.js';
import type { Repo } from './state.js';
import { deliver, pullRequestPayload, pushPayload } from './webhooks.js';

/** Options of a pull request delivery; see GitHubDouble.pullRequest. */
export interface PullRequestOptions {
  base?: string;
  fork?: string;
  action?: string;
  title?: string;
  number?: number;
  secret?: string;
}

/**
 * The secret and hook id a delivery to `target` is signed with: the repository's hook for that URL,
 * or the given secret. Without a given secret, the hook must exist and receive the event: GitHub
 * would not send it otherwise, and a test relying on it would pass against the double only.
 */
function hookFor(repo: Repo, target: string, event: string, secret: string | undefined) {
  const hook = repo.hooks.find((h) => h.url === target);
  if (secret !== undefined) return { secret, hookId: hook?.id ?? 0 };
  if (hook === undefined)
    throw new Error(`GitHub double: ${repo.owner}/${repo.name} has no hook for ${target}`);
  if (!hook.active || !(hook.events.includes(event) || hook.events.includes('*'))) {
    throw new Error(`GitHub double: the hook for ${target} does not receive ${event} events`);
  }
  return { secret: hook.secret, hookId: hook.id };
}

/** Sends the `push` for the head of a branch or tag. */
export async function sendPush(
  env: Env,
  fullName: string,
  kind: 'heads' | 'tags',
  name: string,
  target: string,
  secret?: string,
): Promise<number> {
  const repo = env.state.repoByFullName(fullName);
  const sha = (kind === 'heads' ? repo.branches : repo.tags).get(name);
  const head = sha === undefined ? undefined : repo.commits.get(sha);
  if (head === undefined) throw new Error(`GitHub double: ${fullName} has no ${kind} ${name}`);
  // A tag push always creates the tag; a branch push creates the branch with its first commit.
  const before = kind === 'heads' ? head.branchBefore : undefined;
  const payload = pushPayload(env.state, repo, `refs/${kind}/${name}`, head, before, env.urls);
  const hook = hookFor(repo, target, 'push', secret);
  return deliver(target, 'push', payload, hook.secret, { hookId: hook.hookId, repoId: repo.id });
}

/**
 * Sends the `push` of a forced push to a branch: `before` is the commit the branch was at before it
 * was rewritten (which may be gone from the repository), `forced` is true.
 */
export async function sendForcedPush(
  env: Env,
  fullName: string,
  branch: string,
  target: string,
  before: string,
): Promise<number> {
  const repo = env.state.repoByFullName(fullName);
  const sha = repo.branches.get(branch);
  const head = sha === undefined ? undefined : repo.commits.get(sha);
  if (head === undefined) throw new Error(`GitHub double: ${fullName} has no branch ${branch}`);
  const payload = {
    ...pushPayload(env.state, repo, `refs/heads/${branch}`, head, before, env.urls),
    forced: true,
  };
  const hook = hookFor(repo, target, 'push', undefined);
  return deliver(target, 'push', payload, hook.secret, { hookId: hook.hookId, repoId: repo.id });
}

/** Opens a pull request from `head` and sends its `pull_request` delivery. */
export async function sendPullRequest(
  env: Env,
  fullName: string,
  head: string,
  target: string,
  options: PullRequestOptions,
): Promise<{ number: number; sha: string; status: number }> {
  const { state } = env;
  const repo = state.repoByFullName(fullName);
  const from = options.fork === undefined ? repo : state.repoByFullName(options.fork);
  const baseRef = options.base ?? repo.defaultBranch;
  const baseSha = repo.branches.get(baseRef);
  if (baseSha === undefined) throw new Error(`GitHub double: ${fullName} has no branch ${baseRef}`);
  const hook = hookFor(repo, target, 'pull_request', options.secret);
  const opened = state.openPull(repo, from, head);
  const number = options.number ?? opened.number;
  env.pullBases.set(`${repo.id}#${number}`, baseSha);
  const payload = pullRequestPayload(
    state,
    {
      action: options.action ?? 'opened',
      number,
      title: options.title ?? opened.commit.message,
      author: from.owner,
    },
    { repo, ref: baseRef, sha: baseSha },
    { repo: from, ref: head, sha: opened.commit.sha },
    env.urls,
  );
  const status = await deliver(target, 'pull_request', payload, hook.secret, {
    hookId: hook.hookId,
    repoId: repo.id,
  });
  return { number, sha: opened.commit.sha, status };
}
