import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { owner, repository, simpleUser, type Urls } from './render.js';
import type { Commit, GitHubState, Repo } from './state.js';

const NO_COMMIT = '0'.repeat(40);

/**
 * Sends one webhook delivery as GitHub does (docs: webhooks/webhook-events-and-payloads, "Delivery
 * headers"; webhooks/using-webhooks/validating-webhook-deliveries): a JSON body signed with
 * HMAC-SHA256 (`X-Hub-Signature-256`) and the legacy HMAC-SHA1 (`X-Hub-Signature`). Returns the
 * receiver's HTTP status.
 */
export async function deliver(
  url: string,
  event: string,
  payload: unknown,
  secret: string,
  target?: { hookId: number; repoId: number },
): Promise<number> {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': `GitHub-Hookshot/${randomBytes(4).toString('hex').slice(0, 7)}`,
    'x-github-event': event,
    'x-github-delivery': randomUUID(),
  };
  if (target !== undefined) {
    headers['x-github-hook-id'] = String(target.hookId);
    headers['x-github-hook-installation-target-type'] = 'repository';
    headers['x-github-hook-installation-target-id'] = String(target.repoId);
  }
  if (secret !== '') {
    headers['x-hub-signature'] = `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`;
    headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  }
  const response = await fetch(url, { method: 'POST', headers, body });
  await response.arrayBuffer();
  return response.status;
}

/** A commit as push payloads list it. */
function pushCommit(repo: Repo, c: Commit, state: GitHubState, urls: Urls) {
  const author = state.user(c.author);
  const person = {
    name: c.author,
    email: author?.primaryEmail || `${c.author}@users.noreply.github.com`,
    username: c.author,
  };
  const parentTree = c.parent === undefined ? undefined : repo.commits.get(c.parent)?.tree;
  const changed = [...c.tree.keys()].filter((path) => parentTree?.get(path) !== c.tree.get(path));
  return {
    id: c.sha,
    tree_id: c.sha.split('').reverse().join(''),
    distinct: true,
    message: c.message,
    timestamp: c.timestamp,
    url: `${urls.web}/${repo.owner}/${repo.name}/commit/${c.sha}`,
    author: person,
    committer: person,
    added: changed.filter((path) => !parentTree?.has(path)),
    removed: [],
    modified: changed.filter((path) => parentTree?.has(path) === true),
  };
}

/**
 * The `push` payload for the head of a branch or tag (docs: webhook-events-and-payloads#push):
 * the repository in push form (owner with `name` and `login`, times as epoch seconds), the pusher,
 * the sender, the pushed commit and the compare link.
 */
export function pushPayload(
  state: GitHubState,
  repo: Repo,
  ref: string,
  head: Commit,
  before: string | undefined,
  urls: Urls,
) {
  const pusher = state.user(head.author);
  const repoJson = repository(state, repo, undefined, urls);
  const created = Math.floor(Date.parse(repo.created) / 1000);
  const html = repoJson.html_url;
  const commit = pushCommit(repo, head, state, urls);
  return {
    ref,
    before: before ?? NO_COMMIT,
    after: head.sha,
    repository: {
      ...repoJson,
      owner: { ...owner(state, repo.owner, urls), name: repo.owner, email: null },
      created_at: created,
      pushed_at: Math.floor(Date.now() / 1000),
      stargazers: 0,
      master_branch: repo.defaultBranch,
    },
    pusher: { name: head.author, email: commit.author.email },
    sender: pusher === undefined ? owner(state, head.author, urls) : simpleUser(pusher, urls),
    created: before === undefined,
    deleted: false,
    forced: false,
    base_ref: null,
    compare:
      before === undefined
        ? `${html}/commit/${head.sha}`
        : `${html}/compare/${before.slice(0, 12)}...${head.sha.slice(0, 12)}`,
    commits: [commit],
    head_commit: commit,
  };
}

/** One side (head or base) of a pull request. */
function prSide(state: GitHubState, repo: Repo, ref: string, sha: string, urls: Urls) {
  return {
    label: `${repo.owner}:${ref}`,
    ref,
    sha,
    user: owner(state, repo.owner, urls),
    repo: repository(state, repo, undefined, urls),
  };
}

/** The `pull_request` payload (docs: webhook-events-and-payloads#pull_request). */
export function pullRequestPayload(
  state: GitHubState,
  pr: { action: string; number: number; title: string; author: string },
  base: { repo: Repo; ref: string; sha: string },
  head: { repo: Repo; ref: string; sha: string },
  urls: Urls,
) {
  const baseJson = repository(state, base.repo, undefined, urls);
  const author = state.user(pr.author);
  const user = author === undefined ? owner(state, pr.author, urls) : simpleUser(author, urls);
  const now = new Date().toISOString();
  return {
    action: pr.action,
    number: pr.number,
    pull_request: {
      url: `${baseJson.url}/pulls/${pr.number}`,
      id: state.nextId(),
      html_url: `${baseJson.html_url}/pull/${pr.number}`,
      diff_url: `${baseJson.html_url}/pull/${pr.number}.diff`,
      number: pr.number,
      state: pr.action === 'closed' ? 'closed' : 'open',
      locked: false,
      title: pr.title,
      user,
      body: null,
      created_at: now,
      updated_at: now,
      closed_at: null,
      merged_at: null,
      draft: false,
      head: prSide(state, head.repo, head.ref, head.sha, urls),
      base: prSide(state, base.repo, base.ref, base.sha, urls),
      author_association: 'OWNER',
      merged: false,
    },
    repository: baseJson,
    sender: user,
  };
}
