import { randomUUID } from 'node:crypto';
import type { Repo } from '../forge/state.js';
import type { Env } from './env.js';
import { hookProject } from './render.js';
import { postDelivery } from '../forge/deliver.js';

const NO_COMMIT = '0'.repeat(40);

/**
 * Sends one webhook delivery as GitLab does (docs: user/project/integrations/webhooks): the JSON
 * payload, `X-Gitlab-Event`, the hook's secret token as it is in `X-Gitlab-Token` (none without a
 * token), `X-Gitlab-Event-UUID`, `X-Gitlab-Webhook-UUID`, `X-Gitlab-Instance`, `Idempotency-Key`.
 */
export async function deliver(
  env: Env,
  url: string,
  event: string,
  payload: unknown,
  token: string,
): Promise<number> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'GitLab/17.5.0',
    'idempotency-key': randomUUID(),
    'x-gitlab-event': event,
    'x-gitlab-event-uuid': randomUUID(),
    'x-gitlab-webhook-uuid': randomUUID(),
    'x-gitlab-instance': env.urls.web,
    ...(token === '' ? {} : { 'x-gitlab-token': token }),
  };
  return postDelivery(url, headers, JSON.stringify(payload));
}

function pusher(env: Env, repo: Repo) {
  const user = [repo.owner, ...repo.admins]
    .map((login) => env.state.user(login))
    .find((u) => u !== undefined);
  if (user === undefined) throw new Error(`GitLab double: nobody could push to ${repo.owner}/${repo.name}`);
  return user;
}

/** A Push Hook of a branch's newest commit, or a Tag Push Hook (`checkout_sha` the tagged commit). */
export function pushPayload(env: Env, repo: Repo, kind: 'heads' | 'tags', name: string) {
  const sha = kind === 'heads' ? repo.branches.get(name) : repo.tags.get(name);
  const head = sha === undefined ? undefined : repo.commits.get(sha);
  if (head === undefined) throw new Error(`GitLab double: no ${kind} ${name}`);
  const user = pusher(env, repo);
  const email = env.state.user(head.author)?.primaryEmail ?? `${head.author}@example.com`;
  const commit = {
    id: head.sha,
    message: `${head.message}\n`,
    title: head.message.split('\n')[0] ?? '',
    timestamp: head.timestamp,
    url: `${env.urls.web}/${repo.owner}/${repo.name}/-/commit/${head.sha}`,
    author: { name: head.author, email },
    added: [],
    modified: [...head.tree.keys()],
    removed: [],
  };
  return {
    object_kind: kind === 'heads' ? 'push' : 'tag_push',
    event_name: kind === 'heads' ? 'push' : 'tag_push',
    before: kind === 'tags' ? NO_COMMIT : (head.branchBefore ?? NO_COMMIT),
    after: head.sha,
    ref: `refs/${kind}/${name}`,
    ref_protected: false,
    checkout_sha: head.sha,
    message: null,
    user_id: user.id,
    user_name: user.login,
    user_username: user.login,
    user_email: '',
    user_avatar: `${env.urls.web}/uploads/-/system/user/avatar/${user.id}/avatar.png`,
    project_id: repo.id,
    project: hookProject(repo, env.urls),
    commits: kind === 'heads' ? [commit] : [],
    total_commits_count: kind === 'heads' ? 1 : 0,
    push_options: {},
    repository: {
      name: repo.name,
      url: hookProject(repo, env.urls).git_ssh_url,
      description: '',
      homepage: hookProject(repo, env.urls).web_url,
    },
  };
}

/** A Merge Request Hook: `oldrev` with new commits (action `update`), on the target project. */
export function mergeRequestPayload(
  env: Env,
  repo: Repo,
  from: Repo,
  head: string,
  iid: number,
  action: string,
  author: string,
) {
  const sha = from.branches.get(head) ?? '';
  const last = from.commits.get(sha);
  const user = env.state.user(author);
  if (user === undefined || last === undefined) throw new Error('GitLab double: no such author or commit');
  return {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: {
      id: user.id,
      name: user.login,
      username: user.login,
      avatar_url: `${env.urls.web}/uploads/-/system/user/avatar/${user.id}/avatar.png`,
      email: '[REDACTED]',
    },
    project: hookProject(repo, env.urls),
    object_attributes: {
      id: 500_000 + iid,
      iid,
      title: `Change ${head}`,
      description: '',
      state: action === 'close' ? 'closed' : action === 'merge' ? 'merged' : 'opened',
      action,
      ...(action === 'update' ? { oldrev: last.parent ?? NO_COMMIT } : {}),
      source_branch: head,
      target_branch: repo.defaultBranch,
      source_project_id: from.id,
      target_project_id: repo.id,
      author_id: user.id,
      merge_status: 'unchecked',
      detailed_merge_status: 'mergeable',
      draft: false,
      work_in_progress: false,
      url: `${env.urls.web}/${repo.owner}/${repo.name}/-/merge_requests/${iid}`,
      source: hookProject(from, env.urls),
      target: hookProject(repo, env.urls),
      last_commit: {
        id: last.sha,
        message: `${last.message}\n`,
        title: last.message,
        timestamp: last.timestamp,
        url: `${env.urls.web}/${from.owner}/${from.name}/-/commit/${last.sha}`,
        author: { name: last.author, email: env.state.user(last.author)?.primaryEmail ?? '' },
      },
      labels: [],
    },
    labels: [],
    changes: {},
    repository: {
      name: repo.name,
      url: hookProject(repo, env.urls).git_ssh_url,
      description: '',
      homepage: hookProject(repo, env.urls).web_url,
    },
  };
}
