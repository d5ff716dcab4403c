import type { ScmHookBuild } from '../../core/scm.js';
import type { HookEvent } from '../hook-payload.js';
import type { PullRequestPayload, PushPayload, RefEventPayload } from './webhook-schemas.js';

/** The sha Gogs sends for "no commit": the `after` of a deleted ref. */
const NO_COMMIT = /^0+$/;

type RepoIdentity = { namespace: string; name: string; uid: string };

/**
 * A `push`. Gogs sends it for branches (a tag arrives as `create` only); `commits` are newest first
 * and may be empty, so the commit is `after`, and the message and author come from the newest commit
 * when there is one, else from the pusher.
 */
export function fromPush(repo: RepoIdentity, push: PushPayload): HookEvent {
  const isTag = push.ref.startsWith('refs/tags/');
  if (NO_COMMIT.test(push.after)) return { kind: 'ignored', reason: `${isTag ? 'tag' : 'branch'} deleted` };
  const name = push.ref.replace(/^refs\/(heads|tags)\//, '');
  const head = push.commits?.find((commit) => commit.id === push.after) ?? push.commits?.[0];
  const pusher = push.pusher ?? push.sender;
  const authorLogin = head?.author.username || pusher.username;
  const build: ScmHookBuild = {
    event: isTag ? 'tag' : 'push',
    action: isTag ? 'created' : '',
    ref: push.ref,
    before: push.before,
    after: push.after,
    source: name,
    target: name,
    sourceRepo: push.repository.full_name,
    fork: false,
    title: '',
    message: head?.message ?? '',
    link: push.compare_url || head?.url || '',
    authorLogin,
    authorName: head?.author.name ?? '',
    authorEmail: head?.author.email ?? pusher.email ?? '',
    // The payload has the pusher's avatar only; it is the author's when they are the same person.
    authorAvatar: authorLogin === pusher.username ? (pusher.avatar_url ?? '') : '',
    sender: push.sender.username,
  };
  return { kind: 'build', repo, build };
}

/**
 * A `create`: a tag builds as `tag` at the `sha` Gogs gives (it sends no push for tags); a new
 * branch builds from the `push` Gogs sends with it.
 */
export function fromCreate(repo: RepoIdentity, event: RefEventPayload, link: string): HookEvent {
  if (event.ref_type !== 'tag')
    return { kind: 'ignored', reason: `${event.ref_type} created: built from its push event` };
  const sha = event.sha ?? '';
  if (sha === '' || NO_COMMIT.test(sha)) return { kind: 'ignored', reason: 'tag created without a commit' };
  const build: ScmHookBuild = {
    event: 'tag',
    action: 'created',
    ref: `refs/tags/${event.ref}`,
    before: sha,
    after: sha,
    source: event.ref,
    target: event.ref,
    sourceRepo: `${repo.namespace}/${repo.name}`,
    fork: false,
    title: '',
    message: `tag ${event.ref}`,
    link: link === '' ? '' : `${link}/src/${encodeURIComponent(event.ref)}`,
    authorLogin: event.sender.username,
    authorName: '',
    authorEmail: event.sender.email ?? '',
    authorAvatar: event.sender.avatar_url ?? '',
    sender: event.sender.username,
  };
  return { kind: 'build', repo, build };
}

/** The pull request actions that build, and the names svc gives them (Gogs says `synchronized`). */
const BUILT_ACTIONS: Readonly<Record<string, string>> = {
  opened: 'opened',
  synchronized: 'synchronized',
  reopened: 'reopened',
};

/**
 * A `pull_request`: opened, pushed to (synchronized) or reopened builds. Gogs gives no commit sha, so
 * `after` is left empty for the trigger to resolve from the head branch; the build checks out
 * `refs/pull/N/head`, which Gogs keeps in the base repository, also for forks.
 */
export function fromPullRequest(repo: RepoIdentity, payload: PullRequestPayload): HookEvent {
  const action = BUILT_ACTIONS[payload.action];
  if (action === undefined) {
    const what =
      payload.action === 'closed' && payload.pull_request.merged === true ? 'merged' : payload.action;
    return { kind: 'ignored', reason: `pull request ${what}` };
  }
  const pr = payload.pull_request;
  const baseRepo = pr.base_repo?.full_name ?? payload.repository.full_name;
  const sourceRepo = pr.head_repo?.full_name ?? '';
  const build: ScmHookBuild = {
    event: 'pull_request',
    action,
    ref: `refs/pull/${payload.number}/head`,
    before: '',
    after: '',
    source: pr.head_branch,
    target: pr.base_branch,
    sourceRepo,
    fork: sourceRepo.toLowerCase() !== baseRepo.toLowerCase(),
    title: pr.title,
    message: pr.title,
    link: pr.html_url,
    authorLogin: pr.user.username,
    authorName: '',
    authorEmail: pr.user.email ?? '',
    authorAvatar: pr.user.avatar_url ?? '',
    sender: payload.sender.username,
  };
  return { kind: 'build', repo, build };
}
