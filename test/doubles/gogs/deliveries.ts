import { randomUUID } from 'node:crypto';
import type { Repo } from '../forge/state.js';
import type { Env } from './env.js';
import { renderPayloadCommit, renderRepo, renderUser } from './render.js';
import { hmacHex, postDelivery } from '../forge/deliver.js';

const NO_COMMIT = '0'.repeat(40);

/**
 * Sends one webhook delivery as Gogs does (gogs.io docs, "Webhooks"): a POST of the payload as
 * indented JSON, `X-Gogs-Event`, `X-Gogs-Delivery`, their `X-Github-*` twins, and `X-Gogs-Signature`,
 * the hex HMAC-SHA256 of the body under the hook's secret (sent empty when the hook has none).
 * Returns the receiver's HTTP status.
 */
export async function deliver(url: string, event: string, payload: unknown, secret: string): Promise<number> {
  const body = JSON.stringify(payload, null, 2);
  const delivery = randomUUID();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'GogsServer',
    'x-gogs-event': event,
    'x-gogs-delivery': delivery,
    'x-gogs-signature': hmacHex('sha256', secret, body),
    'x-github-event': event,
    'x-github-delivery': delivery,
  };
  return postDelivery(url, headers, body);
}

function sender(env: Env, login: string) {
  const user = env.state.user(login);
  if (user === undefined) throw new Error(`Gogs double: no user ${login}`);
  return renderUser(user, env.urls);
}

/** A `push` of a branch's newest commit: `commits` newest first, as Gogs sends them. */
export function pushPayload(env: Env, repo: Repo, branch: string) {
  const sha = repo.branches.get(branch);
  const head = sha === undefined ? undefined : repo.commits.get(sha);
  if (head === undefined) throw new Error(`Gogs double: no branch ${branch}`);
  const before = head.branchBefore ?? NO_COMMIT;
  const fullName = `${repo.owner}/${repo.name}`;
  const pusher = sender(env, env.state.user(head.author) === undefined ? repo.owner : head.author);
  return {
    ref: `refs/heads/${branch}`,
    before,
    after: head.sha,
    compare_url: before === NO_COMMIT ? '' : `${env.urls.web}/${fullName}/compare/${before}...${head.sha}`,
    commits: [renderPayloadCommit(env.state, repo, head, env.urls)],
    repository: renderRepo(env.state, repo, env.urls),
    pusher,
    sender: pusher,
  };
}

/** A `create` of a tag: Gogs' only event for a pushed tag (`ref` is the short name). */
export function tagPayload(env: Env, repo: Repo, tag: string) {
  const sha = repo.tags.get(tag);
  if (sha === undefined) throw new Error(`Gogs double: no tag ${tag}`);
  return {
    ref: tag,
    ref_type: 'tag',
    sha,
    default_branch: repo.defaultBranch,
    repository: renderRepo(env.state, repo, env.urls),
    sender: sender(env, repo.owner),
  };
}

/** A `pull_request`: branches and repositories, no commit sha (Gogs sends none). */
export function pullRequestPayload(
  env: Env,
  repo: Repo,
  from: Repo,
  head: string,
  number: number,
  action: string,
  author: string,
) {
  const user = sender(env, author);
  return {
    action,
    number,
    pull_request: {
      id: 10_000 + number,
      number,
      user,
      title: `Change ${head}`,
      body: '',
      labels: [],
      milestone: null,
      assignee: null,
      state: action === 'closed' ? 'closed' : 'open',
      comments: 0,
      head_branch: head,
      head_repo: renderRepo(env.state, from, env.urls),
      base_branch: repo.defaultBranch,
      base_repo: renderRepo(env.state, repo, env.urls),
      html_url: `${env.urls.web}/${repo.owner}/${repo.name}/pulls/${number}`,
      mergeable: true,
      merged: false,
      merged_at: null,
      merge_commit_sha: null,
      merged_by: null,
    },
    repository: renderRepo(env.state, repo, env.urls),
    sender: user,
  };
}
