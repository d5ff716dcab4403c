import { InvalidInputError, UnauthorizedError } from '../../core/errors.js';
import type { ScmHookBuild, ScmHookRequest, ScmHookResult, ScmRepoRef } from '../../core/scm.js';
import { readHookJson, readHookPayload, withDelivery, type HookEvent } from '../hook-payload.js';
import { hmacSha256Matches } from '../signature.js';
import { authorOf } from './convert.js';
import {
  anyHookSchema,
  pullRequestSchema,
  pushSchema,
  type PullRequestPayload,
  type PushPayload,
} from './webhook-schemas.js';

type RepoIdentity = ScmRepoRef & { uid: string };

/**
 * The headers that name the delivery, in order of preference: `X-Request-UUID`, "the UUID of the
 * request" (Bitbucket Cloud docs, "Event payloads", HTTP headers).
 */
const DELIVERY_HEADERS = ['x-request-uuid'];

/** Verifies and reads a webhook (readHook); a build carries the delivery's id. */
export async function parseHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<ScmHookResult> {
  return withDelivery(await readHook(request, secretOf), request, DELIVERY_HEADERS);
}

/**
 * Verifies and reads a Bitbucket Cloud webhook: `X-Hub-Signature` is `sha256=` and the hex
 * HMAC-SHA256 of the raw body under the hook's secret; nothing but the repository's identity is read
 * before it verifies.
 */
async function readHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<HookEvent> {
  const signature = request.headers['x-hub-signature'];
  if (signature === undefined || signature === '')
    throw new UnauthorizedError('Bitbucket webhook: no X-Hub-Signature header');
  const body = readHookJson('Bitbucket', request.body);
  const identity = anyHookSchema.safeParse(body);
  if (!identity.success)
    throw new UnauthorizedError(
      'Bitbucket webhook: the payload names no repository whose secret could verify it',
    );
  const [namespace = '', name = ''] = identity.data.repository.full_name.split('/');
  const repo: RepoIdentity = { namespace, name, uid: identity.data.repository.uuid };
  const secret = await secretOf(repo);
  if (secret === undefined || secret === '') {
    throw new UnauthorizedError(
      `Bitbucket webhook: repository ${namespace}/${name} is unknown or has no secret`,
    );
  }
  const hex = /^sha256=(.*)$/.exec(signature)?.[1] ?? '';
  if (!hmacSha256Matches(request.body, secret, hex)) {
    throw new UnauthorizedError(`Bitbucket webhook: the signature does not match for ${namespace}/${name}`);
  }
  const event = request.headers['x-event-key'];
  if (event === undefined || event === '')
    throw new InvalidInputError('Bitbucket webhook: no X-Event-Key header');
  switch (event) {
    case 'repo:push':
      return fromPush(repo, readHookPayload('Bitbucket', event, pushSchema, body));
    case 'pullrequest:created':
    case 'pullrequest:updated':
      return fromPullRequest(repo, event, readHookPayload('Bitbucket', event, pullRequestSchema, body));
    default:
      return { kind: 'ignored', reason: `event ${event} is not built` };
  }
}

/** A push: the first change with a new ref (a branch, or a tag); a deletion (`new` null) builds nothing. */
function fromPush(repo: RepoIdentity, push: PushPayload): HookEvent {
  const change = push.push.changes.find((c) => c.new !== null && c.new !== undefined);
  const next = change?.new;
  if (change === undefined || next === null || next === undefined) {
    const old = push.push.changes[0]?.old;
    return { kind: 'ignored', reason: `${old?.type === 'branch' ? 'branch' : 'tag'} deleted` };
  }
  const isTag = next.type !== 'branch' && next.type !== 'named_branch';
  const author = authorOf(next.target.author?.raw ?? '');
  const build: ScmHookBuild = {
    event: isTag ? 'tag' : 'push',
    action: isTag ? 'created' : '',
    ref: `refs/${isTag ? 'tags' : 'heads'}/${next.name}`,
    before: change.old?.target.hash ?? '',
    after: next.target.hash,
    source: next.name,
    target: next.name,
    sourceRepo: push.repository.full_name,
    fork: false,
    title: '',
    message: next.target.message ?? '',
    link: next.target.links?.html?.href ?? '',
    authorLogin: next.target.author?.user?.nickname ?? push.actor.nickname ?? '',
    authorName: author.name,
    authorEmail: author.email,
    authorAvatar: next.target.author?.user?.links?.avatar?.href ?? push.actor.links?.avatar?.href ?? '',
    sender: push.actor.nickname ?? '',
  };
  return { kind: 'build', repo, build };
}

/**
 * `pullrequest:created` (opened) and `pullrequest:updated` (new commits, or an edit: Bitbucket sends
 * both alike, so both build). Bitbucket gives 12-character commit hashes: the trigger reads the full
 * commit. The build checks out the source branch's commit: Bitbucket has no pull request refs.
 */
function fromPullRequest(repo: RepoIdentity, event: string, payload: PullRequestPayload): HookEvent {
  const pr = payload.pullrequest;
  if (pr.state !== 'OPEN') return { kind: 'ignored', reason: `pull request ${pr.state.toLowerCase()}` };
  // A deleted fork's pull request has no source repository: a fork's, never the repository's own.
  const sourceRepo = pr.source.repository?.full_name ?? '';
  const build: ScmHookBuild = {
    event: 'pull_request',
    action: event === 'pullrequest:created' ? 'opened' : 'synchronized',
    ref: `refs/heads/${pr.source.branch.name}`,
    before: pr.destination.commit.hash,
    after: pr.source.commit.hash,
    source: pr.source.branch.name,
    target: pr.destination.branch.name,
    sourceRepo,
    fork:
      pr.source.repository == null ||
      pr.source.repository.uuid !== (pr.destination.repository?.uuid ?? payload.repository.uuid),
    title: pr.title,
    message: pr.title,
    link: pr.links.html.href,
    authorLogin: pr.author.nickname ?? '',
    authorName: pr.author.display_name ?? '',
    authorEmail: '',
    authorAvatar: pr.author.links?.avatar?.href ?? '',
    sender: payload.actor.nickname ?? '',
  };
  return { kind: 'build', repo, build };
}
