import { InvalidInputError, UnauthorizedError } from '../../core/errors.js';
import type { ScmHookBuild, ScmHookRequest, ScmHookResult, ScmRepoRef } from '../../core/scm.js';
import { readHookJson, readHookPayload, withDelivery, type HookEvent } from '../hook-payload.js';
import { hmacSha256Matches } from '../signature.js';
import {
  identitySchema,
  pullRequestSchema,
  refsChangedSchema,
  type HookRepository,
  type PullRequestPayload,
  type RefsChangedPayload,
} from './webhook-schemas.js';

type RepoIdentity = ScmRepoRef & { uid: string };

const PROVIDER = 'Bitbucket Server';

/**
 * The headers that name the delivery, in order of preference: `X-Request-Id`, "a unique UUID for
 * each webhook request" (Bitbucket Data Center docs, "Event payload", HTTP headers).
 */
const DELIVERY_HEADERS = ['x-request-id'];

/** Verifies and reads a webhook (readHook); a build carries the delivery's id. */
export async function parseHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<ScmHookResult> {
  return withDelivery(await readHook(request, secretOf), request, DELIVERY_HEADERS);
}

/**
 * Verifies and reads a Bitbucket Server webhook: `X-Hub-Signature` is `sha256=` and the hex
 * HMAC-SHA256 of the raw body under the webhook's secret; nothing but the repository's identity is
 * read before it verifies. The "Test connection" button's `diagnostics:ping` names no repository
 * and is answered without reading anything.
 */
async function readHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<HookEvent> {
  const event = request.headers['x-event-key'];
  if (event === 'diagnostics:ping') return { kind: 'ignored', reason: 'a test of the connection' };
  const signature = request.headers['x-hub-signature'];
  if (signature === undefined || signature === '')
    throw new UnauthorizedError(
      `${PROVIDER} webhook: no X-Hub-Signature header (is the webhook's secret set?)`,
    );
  const body = readHookJson(PROVIDER, request.body);
  const identity = identitySchema.safeParse(body);
  if (!identity.success)
    throw new UnauthorizedError(
      `${PROVIDER} webhook: the payload names no repository whose secret could verify it`,
    );
  const repo = identityOf(
    'repository' in identity.data ? identity.data.repository : identity.data.pullRequest.toRef.repository,
  );
  const secret = await secretOf(repo);
  if (secret === undefined || secret === '')
    throw new UnauthorizedError(
      `${PROVIDER} webhook: repository ${repo.namespace}/${repo.name} is unknown or has no secret`,
    );
  const hex = /^sha256=(.*)$/.exec(signature)?.[1] ?? '';
  if (!hmacSha256Matches(request.body, secret, hex))
    throw new UnauthorizedError(
      `${PROVIDER} webhook: the signature does not match for ${repo.namespace}/${repo.name}`,
    );
  if (event === undefined || event === '')
    throw new InvalidInputError(`${PROVIDER} webhook: no X-Event-Key header`);
  switch (event) {
    case 'repo:refs_changed':
      return fromRefsChanged(repo, readHookPayload(PROVIDER, event, refsChangedSchema, body));
    case 'pr:opened':
    case 'pr:from_ref_updated':
    case 'pr:modified':
      return fromPullRequest(repo, event, readHookPayload(PROVIDER, event, pullRequestSchema, body));
    default:
      return { kind: 'ignored', reason: `event ${event} is not built` };
  }
}

function identityOf(repository: HookRepository): RepoIdentity {
  return { namespace: repository.project.key, name: repository.slug, uid: String(repository.id) };
}

/** The commit's page, from the repository's browse link (absent on older servers). */
function commitLink(repository: HookRepository, sha: string): string {
  const browse = repository.links?.self?.[0]?.href;
  return browse === undefined ? '' : `${browse.replace(/\/browse\/?$/, '')}/commits/${sha}`;
}

/**
 * A push: the first ref it created or moved (a branch, or a tag); a push that only deleted refs
 * builds nothing. The payload names the new commit but not its message or author, and for an
 * annotated tag the tag object: the build is marked incomplete, and the trigger reads the commit.
 */
function fromRefsChanged(repo: RepoIdentity, payload: RefsChangedPayload): HookEvent {
  const change = payload.changes.find((c) => c.type !== 'DELETE');
  if (change === undefined) {
    const deleted = payload.changes[0]?.ref.type === 'TAG' ? 'tag' : 'branch';
    return { kind: 'ignored', reason: `${deleted} deleted` };
  }
  const isTag = change.ref.type === 'TAG';
  const name = change.ref.displayId;
  const build: ScmHookBuild = {
    event: isTag ? 'tag' : 'push',
    action: isTag ? 'created' : '',
    ref: change.ref.id.startsWith('refs/') ? change.ref.id : `refs/${isTag ? 'tags' : 'heads'}/${name}`,
    before: isTag ? '' : change.fromHash,
    after: change.toHash,
    source: name,
    target: name,
    sourceRepo: `${repo.namespace}/${repo.name}`,
    fork: false,
    title: '',
    message: '',
    link: commitLink(payload.repository, change.toHash),
    authorLogin: '',
    authorName: '',
    authorEmail: '',
    authorAvatar: '',
    sender: payload.actor.slug ?? payload.actor.name,
    incomplete: true,
  };
  return { kind: 'build', repo, build };
}

/**
 * A pull request opened, its source branch pushed to (`pr:from_ref_updated`), or retargeted
 * (`pr:modified` with another target; a mere edit of title or description builds nothing). The
 * build checks out `refs/pull-requests/{id}/from`, which Bitbucket keeps for every pull request.
 */
function fromPullRequest(repo: RepoIdentity, event: string, payload: PullRequestPayload): HookEvent {
  const pr = payload.pullRequest;
  if (pr.state !== 'OPEN') return { kind: 'ignored', reason: `pull request ${pr.state.toLowerCase()}` };
  if (event === 'pr:modified') {
    const before = payload.previousTarget;
    const retargeted =
      before !== null &&
      before !== undefined &&
      (before.id !== pr.toRef.id || (before.latestCommit ?? pr.toRef.latestCommit) !== pr.toRef.latestCommit);
    if (!retargeted) return { kind: 'ignored', reason: 'pull request edited' };
  }
  // Documented as always there; a payload without it (a deleted fork) is a fork's, never ours.
  const from = pr.fromRef.repository as typeof pr.fromRef.repository | null | undefined;
  const author = pr.author?.user;
  const build: ScmHookBuild = {
    event: 'pull_request',
    action: event === 'pr:opened' ? 'opened' : 'synchronized',
    ref: `refs/pull-requests/${pr.id}/from`,
    before: pr.toRef.latestCommit,
    after: pr.fromRef.latestCommit,
    source: pr.fromRef.displayId,
    target: pr.toRef.displayId,
    sourceRepo: from == null ? '' : `${from.project.key}/${from.slug}`,
    fork: from == null || from.id !== pr.toRef.repository.id,
    title: pr.title,
    message: pr.title,
    link: pr.links?.self?.[0]?.href ?? '',
    authorLogin: author?.slug ?? author?.name ?? '',
    authorName: author?.displayName ?? author?.name ?? '',
    authorEmail: author?.emailAddress ?? '',
    authorAvatar: '',
    sender: payload.actor.slug ?? payload.actor.name,
  };
  return { kind: 'build', repo, build };
}
