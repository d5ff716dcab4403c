import { InvalidInputError, UnauthorizedError } from '../../core/errors.js';
import type { ScmHookRequest, ScmHookResult, ScmRepoRef } from '../../core/scm.js';
import { readHookJson, readHookPayload, withDelivery, type HookEvent } from '../hook-payload.js';
import { hmacSha256Matches } from '../signature.js';
import { fromPullRequest, fromPush } from './parse-events.js';
import { anyHookSchema, pullRequestSchema, pushSchema } from './webhook-schemas.js';

type RepoIdentity = ScmRepoRef & { uid: string };

/** A header of Gitea's, or of Forgejo's own (which sends both). */
function header(request: ScmHookRequest, name: string): string | undefined {
  const value = request.headers[`x-gitea-${name}`] ?? request.headers[`x-forgejo-${name}`];
  return value === '' ? undefined : value;
}

/**
 * The headers that name the delivery, in order of preference: `X-Gitea-Delivery` (Forgejo:
 * `X-Forgejo-Delivery` too), a UUID per delivery (docs.gitea.com, "Webhooks").
 */
const DELIVERY_HEADERS = ['x-gitea-delivery', 'x-forgejo-delivery'];

/** Verifies and reads a webhook (readHook); a build carries the delivery's id. */
export async function parseHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<ScmHookResult> {
  return withDelivery(await readHook(request, secretOf), request, DELIVERY_HEADERS);
}

/**
 * Verifies and reads a Gitea or Forgejo webhook. The payload is trusted for nothing but the
 * repository's identity until `X-Gitea-Signature` (Forgejo: `X-Forgejo-Signature`), the hex
 * HMAC-SHA256 of the raw body under the repository's secret, verifies.
 */
async function readHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<HookEvent> {
  const signature = header(request, 'signature');
  if (signature === undefined) throw new UnauthorizedError('Gitea webhook: no X-Gitea-Signature header');
  const body = readHookJson('Gitea', request.body);
  const identity = anyHookSchema.safeParse(body);
  if (!identity.success) {
    throw new UnauthorizedError(
      'Gitea webhook: the payload names no repository whose secret could verify it',
    );
  }
  const { repository } = identity.data;
  const repo: RepoIdentity = {
    namespace: repository.owner.login,
    name: repository.name,
    uid: String(repository.id),
  };
  const secret = await secretOf(repo);
  // An empty secret would let anyone sign: HMAC under an empty key is no secret at all.
  if (secret === undefined || secret === '') {
    throw new UnauthorizedError(
      `Gitea webhook: repository ${repo.namespace}/${repo.name} is unknown or has no secret`,
    );
  }
  if (!hmacSha256Matches(request.body, secret, signature.trim())) {
    throw new UnauthorizedError(
      `Gitea webhook: the signature does not match for ${repo.namespace}/${repo.name}`,
    );
  }
  const event = header(request, 'event');
  if (event === undefined) throw new InvalidInputError('Gitea webhook: no X-Gitea-Event header');
  switch (event) {
    case 'push':
      return fromPush(repo, readHookPayload('Gitea', event, pushSchema, body));
    case 'pull_request':
      return fromPullRequest(repo, readHookPayload('Gitea', event, pullRequestSchema, body));
    case 'create':
      return { kind: 'ignored', reason: 'created refs build from their push event' };
    case 'delete':
      return { kind: 'ignored', reason: 'ref deleted' };
    default:
      return { kind: 'ignored', reason: `event ${event} is not built` };
  }
}
