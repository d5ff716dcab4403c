import type { ScmHookBuild } from '../../core/scm.js';
import type { HookEvent } from '../hook-payload.js';
import type { PullRequestPayload, PushPayload } from './webhook-schemas.js';

/** The sha GitHub sends for "no commit": the `after` of a deleted ref. */
const NO_COMMIT = /^0+$/;

type RepoIdentity = { namespace: string; name: string; uid: string };

/**
 * A `push` (docs: webhook-events-and-payloads#push). A branch push builds as `push`, a tag push as
 * `tag`; a deleted branch or tag builds nothing. For an annotated tag `after` is the tag object, so
 * the commit comes from `head_commit` (as drone/go-scm does).
 */
export function fromPush(repo: RepoIdentity, push: PushPayload): HookEvent {
  const isTag = push.ref.startsWith('refs/tags/');
  const kind = isTag ? 'tag' : 'branch';
  if (push.deleted === true || NO_COMMIT.test(push.after))
    return { kind: 'ignored', reason: `${kind} deleted` };
  const name = push.ref.replace(/^refs\/(heads|tags)\//, '');
  const head = push.head_commit ?? undefined;
  const authorLogin = head?.author.username || push.sender.login;
  const build: ScmHookBuild = {
    event: isTag ? 'tag' : 'push',
    action: isTag ? 'created' : '',
    ref: push.ref,
    before: push.before,
    after: isTag && head !== undefined ? head.id : push.after,
    source: name,
    target: name,
    sourceRepo: push.repository.full_name,
    fork: false,
    title: '',
    message: head?.message ?? '',
    link: push.compare ?? '',
    authorLogin,
    authorName: head?.author.name ?? '',
    authorEmail: head?.author.email ?? '',
    // The payload has the pusher's avatar only; it is the author's when they are the same person.
    authorAvatar: authorLogin === push.sender.login ? (push.sender.avatar_url ?? '') : '',
    sender: push.sender.login,
  };
  return { kind: 'build', repo, build };
}

/** The pull request actions that build, and the names svc gives them. */
const BUILT_ACTIONS: Readonly<Record<string, string>> = {
  opened: 'opened',
  synchronize: 'synchronized',
  reopened: 'reopened',
};

/**
 * A `pull_request` (docs: webhook-events-and-payloads#pull_request). Only new code builds: opened,
 * pushed to (synchronize) or reopened. The build checks out GitHub's `refs/pull/N/head`, which exists
 * in the base repository even for forks.
 */
export function fromPullRequest(repo: RepoIdentity, payload: PullRequestPayload): HookEvent {
  const action = BUILT_ACTIONS[payload.action];
  if (action === undefined) return { kind: 'ignored', reason: `pull request ${payload.action}` };
  const pr = payload.pull_request;
  const baseRepo = pr.base.repo?.full_name ?? payload.repository.full_name;
  // A head repository GitHub no longer knows (deleted fork) cannot be the base repository.
  const sourceRepo = pr.head.repo?.full_name ?? '';
  const build: ScmHookBuild = {
    event: 'pull_request',
    action,
    ref: `refs/pull/${payload.number}/head`,
    before: pr.base.sha,
    after: pr.head.sha,
    source: pr.head.ref,
    target: pr.base.ref,
    sourceRepo,
    fork: sourceRepo.toLowerCase() !== baseRepo.toLowerCase(),
    title: pr.title,
    message: pr.title,
    link: pr.html_url,
    authorLogin: pr.user.login,
    authorName: '',
    authorEmail: '',
    authorAvatar: pr.user.avatar_url ?? '',
    sender: payload.sender.login,
  };
  return { kind: 'build', repo, build };
}
