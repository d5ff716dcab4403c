import { randomUUID } from 'node:crypto';
import type { Repo } from '../forge/state.js';
import type { Env } from './env.js';
import { renderPayloadCommit, renderRepo, renderUser } from './render.js';
import { hmacHex, postDelivery } from '../forge/deliver.js';

const NO_COMMIT = '0'.repeat(40);

/**
 * Sends one webhook delivery as Gitea does: the JSON payload with `X-Gitea-Event`,
 * `X-Gitea-Event-Type`, `X-Gitea-Delivery`, `X-Gitea-Signature` (hex HMAC-SHA256, empty without a
 * secret), their `X-Gogs-*` and `X-GitHub-*` twins, and `X-Hub-Signature(-256)`. Returns the
 * receiver's HTTP status.
 */
export async function deliver(
  url: string,
  event: string,
  type: string,
  payload: unknown,
  secret: string,
): Promise<number> {
  const body = JSON.stringify(payload, null, 2);
  const id = randomUUID();
  const sha256 = hmacHex('sha256', secret, body);
  const sha1 = hmacHex('sha1', secret, body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Go-http-client/1.1',
    'x-gitea-delivery': id,
    'x-gitea-event': event,
    'x-gitea-event-type': type,
    'x-gitea-signature': sha256,
    'x-gogs-delivery': id,
    'x-gogs-event': event,
    'x-gogs-event-type': type,
    'x-gogs-signature': sha256,
    'x-hub-signature': `sha1=${sha1}`,
    'x-hub-signature-256': `sha256=${sha256}`,
    'x-github-delivery': id,
    'x-github-event': event,
    'x-github-event-type': type,
  };
  return postDelivery(url, headers, body);
}

const OWNER = { admin: true, push: true, pull: true };

function person(env: Env, login: string) {
  const user = env.state.user(login);
  if (user === undefined) throw new Error(`Gitea double: no user ${login}`);
  return renderUser(user, env.urls);
}

/** A `push` of a branch's newest commit, or of a tag (no commits; `head_commit` the tagged one). */
export function pushPayload(env: Env, repo: Repo, kind: 'heads' | 'tags', name: string) {
  const sha = kind === 'heads' ? repo.branches.get(name) : repo.tags.get(name);
  const head = sha === undefined ? undefined : repo.commits.get(sha);
  if (head === undefined) throw new Error(`Gitea double: no ${kind} ${name}`);
  const before = kind === 'tags' ? NO_COMMIT : (head.branchBefore ?? NO_COMMIT);
  const commit = renderPayloadCommit(env.state, repo, head, env.urls);
  const fullName = `${repo.owner}/${repo.name}`;
  const pusher = person(env, pusherOf(env, repo, head.author));
  return {
    ref: `refs/${kind}/${name}`,
    before,
    after: head.sha,
    compare_url: before === NO_COMMIT ? '' : `${env.urls.web}/${fullName}/compare/${before}...${head.sha}`,
    commits: kind === 'tags' ? [] : [commit],
    total_commits: kind === 'tags' ? 0 : 1,
    head_commit: commit,
    repository: renderRepo(env.state, repo, env.urls, OWNER),
    pusher,
    sender: pusher,
  };
}

/** The `create` Gitea sends with a new tag (the short name in `ref`). */
export function createPayload(env: Env, repo: Repo, tag: string) {
  return {
    sha: repo.tags.get(tag) ?? '',
    ref: tag,
    ref_type: 'tag',
    repository: renderRepo(env.state, repo, env.urls, OWNER),
    sender: person(env, pusherOf(env, repo, repo.commits.get(repo.tags.get(tag) ?? '')?.author)),
  };
}

/** Who pushed: the commit's author when that is an account, else the repository's owner or first admin. */
function pusherOf(env: Env, repo: Repo, author: string | undefined): string {
  for (const login of [author, repo.owner, ...repo.admins]) {
    if (login !== undefined && env.state.user(login) !== undefined) return login;
  }
  throw new Error(`Gitea double: nobody could have pushed to ${repo.owner}/${repo.name}`);
}

/** A `pull_request` with both sides' commits. */
export function pullRequestPayload(
  env: Env,
  repo: Repo,
  from: Repo,
  head: string,
  number: number,
  action: string,
  author: string,
) {
  const headSha = from.branches.get(head) ?? '';
  const baseSha = repo.branches.get(repo.defaultBranch) ?? '';
  const side = (r: Repo, ref: string, sha: string) => ({
    label: ref,
    ref,
    sha,
    repo_id: r.id,
    repo: renderRepo(env.state, r, env.urls, OWNER),
  });
  const html = `${env.urls.web}/${repo.owner}/${repo.name}/pulls/${number}`;
  return {
    action,
    number,
    pull_request: {
      id: 10_000 + number,
      url: html,
      number,
      user: person(env, author),
      title: `Change ${head}`,
      body: '',
      labels: [],
      milestone: null,
      assignee: null,
      assignees: null,
      state: action === 'closed' ? 'closed' : 'open',
      is_locked: false,
      comments: 0,
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      mergeable: true,
      merged: false,
      merged_at: null,
      merge_commit_sha: null,
      merged_by: null,
      base: side(repo, repo.defaultBranch, baseSha),
      head: side(from, head, headSha),
      merge_base: baseSha,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
      closed_at: null,
    },
    repository: renderRepo(env.state, repo, env.urls, OWNER),
    sender: person(env, author),
  };
}
