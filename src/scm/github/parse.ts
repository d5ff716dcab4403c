import type { z } from 'zod';
import { InvalidInputError, UnauthorizedError } from '../../core/errors.js';
import type { ScmHookRequest, ScmHookResult, ScmRepoRef } from '../../core/scm.js';
import { readHookJson, readHookPayload, withDelivery, type HookEvent } from '../hook-payload.js';
import { hmacSha256Matches } from '../signature.js';
import { fromPullRequest, fromPush } from './parse-events.js';
import { anyHookSchema, pullRequestSchema, pushSchema, refEventSchema } from './webhook-schemas.js';

type RepoIdentity = ScmRepoRef & { uid: string };

/**
 * The headers that name the delivery, in order of preference: `X-GitHub-Delivery`, a GUID per event
 * that GitHub's redeliveries keep (docs: webhooks/webhook-events-and-payloads, "Delivery headers").
 */
const DELIVERY_HEADERS = ['x-github-delivery'];

/** Verifies and reads a webhook (readHook); a build carries the delivery's id. */
export async function parseHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<ScmHookResult> {
  return withDelivery(await readHook(request, secretOf), request, DELIVERY_HEADERS);
}

/**
 * Verifies and reads a GitHub webhook (docs: webhooks/using-webhooks/validating-webhook-deliveries).
 * Order matters: the payload is trusted for nothing but the repository's identity until
 * `X-Hub-Signature-256` (HMAC-SHA256 of the raw body under the repository's secret) verifies.
 */
async function readHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<HookEvent> {
  const signature = request.headers['x-hub-signature-256'];
  if (signature === undefined || signature === '') {
    throw new UnauthorizedError('GitHub webhook: no X-Hub-Signature-256 header');
  }
  const body = readHookJson('GitHub', request.body);
  const identity = anyHookSchema.safeParse(body);
  if (!identity.success) {
    throw new UnauthorizedError(
      'GitHub webhook: the payload names no repository whose secret could verify it',
    );
  }
  const repo = repoIdentity(identity.data.repository);
  const secret = await secretOf(repo);
  // An empty secret would let anyone sign: HMAC under an empty key is no secret at all.
  if (secret === undefined || secret === '') {
    throw new UnauthorizedError(
      `GitHub webhook: repository ${repo.namespace}/${repo.name} is unknown or has no secret`,
    );
  }
  const hex = /^sha256=(.*)$/.exec(signature)?.[1] ?? '';
  if (!hmacSha256Matches(request.body, secret, hex)) {
    throw new UnauthorizedError(
      `GitHub webhook: the signature does not match for ${repo.namespace}/${repo.name}`,
    );
  }
  const event = request.headers['x-github-event'];
  if (event === undefined || event === '')
    throw new InvalidInputError('GitHub webhook: no X-GitHub-Event header');
  return interpret(event, repo, body);
}

/** What a verified event asks for. */
function interpret(event: string, repo: RepoIdentity, body: unknown): HookEvent {
  switch (event) {
    case 'push':
      return fromPush(repo, readHookPayload('GitHub', event, pushSchema, body));
    case 'pull_request':
      return fromPullRequest(repo, readHookPayload('GitHub', event, pullRequestSchema, body));
    case 'create': {
      // GitHub sends a push for the same ref, with the commit; building both would build twice.
      const { ref_type } = readHookPayload('GitHub', event, refEventSchema, body);
      return { kind: 'ignored', reason: `${ref_type} created: built from its push event` };
    }
    case 'ping':
      return { kind: 'ignored', reason: 'ping' };
    default:
      return { kind: 'ignored', reason: `event ${event} is not built` };
  }
}

function repoIdentity(repository: z.infer<typeof anyHookSchema>['repository']): RepoIdentity {
  const namespace =
    repository.owner.login ||
    repository.owner.name ||
    repository.full_name.split('/')[0] ||
    repository.full_name;
  return { namespace, name: repository.name, uid: String(repository.id) };
}
