import { InvalidInputError, UnauthorizedError } from '../../core/errors.js';
import type { ScmHookRequest, ScmHookResult, ScmRepoRef } from '../../core/scm.js';
import { readHookJson, readHookPayload, withDelivery, type HookEvent } from '../hook-payload.js';
import { hmacSha256Matches } from '../signature.js';
import { fromCreate, fromPullRequest, fromPush } from './parse-events.js';
import { anyHookSchema, pullRequestSchema, pushSchema, refEventSchema } from './webhook-schemas.js';

type RepoIdentity = ScmRepoRef & { uid: string };

/**
 * The headers that name the delivery, in order of preference: `X-Gogs-Delivery`, "a unique UUID
 * identifying this delivery" (gogs.io, "Webhooks", event headers).
 */
const DELIVERY_HEADERS = ['x-gogs-delivery'];

/** Verifies and reads a webhook (readHook); a build carries the delivery's id. */
export async function parseHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<ScmHookResult> {
  return withDelivery(await readHook(request, secretOf), request, DELIVERY_HEADERS);
}

/**
 * Verifies and reads a Gogs webhook. The payload is trusted for nothing but the repository's
 * identity until `X-Gogs-Signature` (the hex HMAC-SHA256 of the raw body under the repository's
 * secret, without a `sha256=` prefix) verifies.
 */
async function readHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<HookEvent> {
  const signature = request.headers['x-gogs-signature'];
  if (signature === undefined || signature === '') {
    throw new UnauthorizedError('Gogs webhook: no X-Gogs-Signature header');
  }
  const body = readHookJson('Gogs', request.body);
  const identity = anyHookSchema.safeParse(body);
  if (!identity.success) {
    throw new UnauthorizedError('Gogs webhook: the payload names no repository whose secret could verify it');
  }
  const repository = identity.data.repository;
  const repo: RepoIdentity = {
    namespace: repository.owner.username,
    name: repository.name,
    uid: String(repository.id),
  };
  const secret = await secretOf(repo);
  // An empty secret would let anyone sign: HMAC under an empty key is no secret at all.
  if (secret === undefined || secret === '') {
    throw new UnauthorizedError(
      `Gogs webhook: repository ${repo.namespace}/${repo.name} is unknown or has no secret`,
    );
  }
  if (!hmacSha256Matches(request.body, secret, signature.trim())) {
    throw new UnauthorizedError(
      `Gogs webhook: the signature does not match for ${repo.namespace}/${repo.name}`,
    );
  }
  const event = request.headers['x-gogs-event'];
  if (event === undefined || event === '')
    throw new InvalidInputError('Gogs webhook: no X-Gogs-Event header');
  switch (event) {
    case 'push':
      return fromPush(repo, readHookPayload('Gogs', event, pushSchema, body));
    case 'create':
      return fromCreate(
        repo,
        readHookPayload('Gogs', event, refEventSchema, body),
        repository.html_url ?? '',
      );
    case 'delete': {
      const { ref_type } = readHookPayload('Gogs', event, refEventSchema, body);
      return { kind: 'ignored', reason: `${ref_type} deleted` };
    }
    case 'pull_request':
      return fromPullRequest(repo, readHookPayload('Gogs', event, pullRequestSchema, body));
    default:
      return { kind: 'ignored', reason: `event ${event} is not built` };
  }
}
