import { timingSafeEqual } from 'node:crypto';
import { InvalidInputError, UnauthorizedError } from '../../core/errors.js';
import type { ScmHookBuild, ScmHookRequest, ScmHookResult, ScmRepoRef } from '../../core/scm.js';
import { readHookJson, readHookPayload, withDelivery, type HookEvent } from '../hook-payload.js';
import {
  anyHookSchema,
  mergeRequestSchema,
  pushSchema,
  type MergeRequestPayload,
  type PushPayload,
} from './webhook-schemas.js';

type RepoIdentity = ScmRepoRef & { uid: string };

const NO_COMMIT = /^0+$/;

/**
 * The headers that name the delivery, in order of preference: `Idempotency-Key`, which GitLab keeps
 * when it retries or resends a request (GitLab 17.4 and later; docs:
 * user/project/integrations/webhooks, "Delivery headers"), else the older `X-Gitlab-Event-UUID`.
 */
const DELIVERY_HEADERS = ['idempotency-key', 'x-gitlab-event-uuid'];

/** Verifies and reads a webhook (readHook); a build carries the delivery's id. */
export async function parseHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<ScmHookResult> {
  return withDelivery(await readHook(request, secretOf), request, DELIVERY_HEADERS);
}

/**
 * Verifies and reads a GitLab webhook. GitLab signs nothing: it sends the hook's secret token as it
 * is in `X-Gitlab-Token`, compared here in constant time with the project's secret before anything
 * else is read from the payload.
 */
async function readHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<HookEvent> {
  const sent = request.headers['x-gitlab-token'];
  if (sent === undefined || sent === '')
    throw new UnauthorizedError('GitLab webhook: no X-Gitlab-Token header');
  const body = readHookJson('GitLab', request.body);
  const identity = anyHookSchema.safeParse(body);
  if (!identity.success)
    throw new UnauthorizedError('GitLab webhook: the payload names no project whose token could verify it');
  const path = identity.data.project.path_with_namespace;
  const at = path.lastIndexOf('/');
  const repo: RepoIdentity = {
    namespace: path.slice(0, at),
    name: path.slice(at + 1),
    uid: String(identity.data.project.id),
  };
  const secret = await secretOf(repo);
  if (secret === undefined || secret === '') {
    throw new UnauthorizedError(`GitLab webhook: project ${path} is unknown or has no secret`);
  }
  if (!sameText(sent, secret))
    throw new UnauthorizedError(`GitLab webhook: the token does not match for ${path}`);
  const event = request.headers['x-gitlab-event'];
  if (event === undefined || event === '')
    throw new InvalidInputError('GitLab webhook: no X-Gitlab-Event header');
  switch (event) {
    case 'Push Hook':
    case 'Tag Push Hook':
      return fromPush(repo, readHookPayload('GitLab', event, pushSchema, body));
    case 'Merge Request Hook':
      return fromMergeRequest(repo, readHookPayload('GitLab', event, mergeRequestSchema, body));
    default:
      return { kind: 'ignored', reason: `event ${event} is not built` };
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A push or tag push: the commit is `checkout_sha` (an annotated tag's `after` is the tag object). */
function fromPush(repo: RepoIdentity, push: PushPayload): HookEvent {
  const isTag = push.object_kind === 'tag_push' || push.ref.startsWith('refs/tags/');
  const sha = push.checkout_sha ?? '';
  if (NO_COMMIT.test(push.after) || sha === '')
    return { kind: 'ignored', reason: `${isTag ? 'tag' : 'branch'} deleted` };
  const name = push.ref.replace(/^refs\/(heads|tags)\//, '');
  // Commits come oldest first; the pushed one is the last (the one `after` names).
  const head = push.commits?.find((commit) => commit.id === sha) ?? push.commits?.at(-1);
  const build: ScmHookBuild = {
    event: isTag ? 'tag' : 'push',
    action: isTag ? 'created' : '',
    ref: push.ref,
    before: push.before,
    after: sha,
    source: name,
    target: name,
    sourceRepo: push.project.path_with_namespace,
    fork: false,
    title: '',
    message: head?.message ?? push.message ?? '',
    link: head?.url ?? push.project.web_url ?? '',
    authorLogin: push.user_username,
    authorName: head?.author.name ?? push.user_name ?? '',
    authorEmail: head?.author.email ?? push.user_email ?? '',
    authorAvatar: push.user_avatar ?? '',
    sender: push.user_username,
  };
  return { kind: 'build', repo, build };
}

/**
 * A merge request: opened, reopened, or updated with new commits (`oldrev` present) builds, at its
 * last commit, from `refs/merge-requests/<iid>/head` of the target project (also for forks).
 */
function fromMergeRequest(repo: RepoIdentity, payload: MergeRequestPayload): HookEvent {
  const mr = payload.object_attributes;
  const action =
    mr.action === 'open'
      ? 'opened'
      : mr.action === 'reopen'
        ? 'reopened'
        : mr.action === 'update' && mr.oldrev
          ? 'synchronized'
          : undefined;
  if (action === undefined) {
    const what = mr.action === 'update' ? 'updated without new commits' : (mr.action ?? 'changed');
    return { kind: 'ignored', reason: `merge request ${what}` };
  }
  const build: ScmHookBuild = {
    event: 'pull_request',
    action,
    ref: `refs/merge-requests/${mr.iid}/head`,
    before: mr.oldrev ?? '',
    after: mr.last_commit.id,
    source: mr.source_branch,
    target: mr.target_branch,
    sourceRepo: mr.source?.path_with_namespace ?? '',
    fork: mr.source_project_id !== mr.target_project_id,
    title: mr.title,
    message: mr.last_commit.message,
    link: mr.url,
    authorLogin: payload.user.username,
    authorName: mr.last_commit.author.name,
    authorEmail: mr.last_commit.author.email,
    authorAvatar: payload.user.avatar_url ?? '',
    sender: payload.user.username,
  };
  return { kind: 'build', repo, build };
}
