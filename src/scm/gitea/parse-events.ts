import type { ScmHookBuild } from '../../core/scm.js';
import type { HookEvent } from '../hook-payload.js';
import type { PullRequestPayload, PushPayload } from './webhook-schemas.js';

/** The sha Gitea sends for "no commit": the `after` of a deleted ref. */
const NO_COMMIT = /^0+$/;

type RepoIdentity = { namespace: string; name: string; uid: string };

/**
 * A `push`. Gitea sends one for branches and for tags (`refs/tags/…`, with the tagged commit as
 * `head_commit`); tags build from it, not from the `create` Gitea may also send (and from 1.26.4 on
 * may not), so a tag builds once. A deleted branch or tag builds nothing.
 */
export function fromPush(repo: RepoIdentity, push: PushPayload): HookEvent {
  const isTag = push.ref.startsWith('refs/tags/');
  if (NO_COMMIT.test(push.after)) return { kind: 'ignored', reason: `${isTag ? 'tag' : 'branch'} deleted` };
  const name = push.ref.replace(/^refs\/(heads|tags)\//, '');
  const head =
    push.head_commit ?? push.commits?.find((commit) => commit.id === push.after) ?? push.commits?.[0];
  const pusher = push.pusher ?? push.sender;
  const authorLogin = head?.author.username || pusher.login;
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
    link: push.compare_url || head?.url || '',
    authorLogin,
    authorName: head?.author.name ?? '',
    authorEmail: head?.author.email ?? '',
    // The payload has the pusher's avatar only; it is the author's when they are the same person.
    authorAvatar: authorLogin === pusher.login ? (pusher.avatar_url ?? '') : '',
    sender: push.sender.login,
  };
  return { kind: 'build', repo, build };
}

/** The pull request actions that build (Gitea says `synchronized` for new commits). */
const BUILT_ACTIONS: ReadonlySet<string> = new Set(['opened', 'synchronized', 'reopened']);

/**
 * A `pull_request`: opened, pushed to (synchronized) or reopened builds, at the head commit, from
 * `refs/pull/N/head` of the base repository. A head repository other than the base one is a fork
 * (a deleted fork has none).
 */
export function fromPullRequest(repo: RepoIdentity, payload: PullRequestPayload): HookEvent {
  if (!BUILT_ACTIONS.has(payload.action)) {
    const merged = payload.action === 'closed' && payload.pull_request.merged === true;
    return { kind: 'ignored', reason: `pull request ${merged ? 'merged' : payload.action}` };
  }
  const pr = payload.pull_request;
  const baseRepo = pr.base.repo?.full_name ?? payload.repository.full_name;
  const sourceRepo = pr.head.repo?.full_name ?? '';
  const build: ScmHookBuild = {
    event: 'pull_request',
    action: payload.action,
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
    authorEmail: pr.user.email ?? '',
    authorAvatar: pr.user.avatar_url ?? '',
    sender: payload.sender.login,
  };
  return { kind: 'build', repo, build };
}
