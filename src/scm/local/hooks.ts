import { createHmac, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { InvalidInputError, UnauthorizedError } from '../../core/errors.js';
import type { ScmHookRequest, ScmHookResult, ScmRepoRef } from '../../core/scm.js';
import { readHookJson, readHookPayload, withDelivery, type HookEvent } from '../hook-payload.js';
import { hmacSha256Matches } from '../signature.js';
import type { ForgeHook } from './forge-state.js';

/**
 * The built-in provider's webhooks: when a push lands, the server sends itself what a git provider
 * would, through the same door (`POST /hook`): one `push` event per updated branch or tag, signed
 * with the repository's hook secret (`X-SVC-Signature: sha256=<hex HMAC-SHA256 of the body>`) and
 * named by `X-SVC-Delivery`. So the local provider's pushes go through the same signature check,
 * delivery de-duplication and trigger as any provider's (docs/local-git.md).
 */
export const pushPayload = z.object({
  ref: z.string(),
  before: z.string(),
  after: z.string(),
  repository: z.object({ id: z.number().int(), owner: z.string(), name: z.string() }),
  /** The pushed commit, or for a tag the commit it names. */
  commit: z.object({
    sha: z.string(),
    message: z.string(),
    author_name: z.string(),
    author_email: z.string(),
  }),
  /** The account that pushed. */
  sender: z.string(),
  /** The web page of the repository in svc (its builds). */
  link: z.string(),
});
export type PushPayload = z.infer<typeof pushPayload>;

const ZERO = /^0+$/;

/** The signature header's value for a body under a secret. */
export function signature(body: Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Sends the push to every webhook of the repository; returns each one's HTTP status (0: unreachable). */
export async function deliverPush(hooks: readonly ForgeHook[], payload: PushPayload): Promise<number[]> {
  const body = Buffer.from(JSON.stringify(payload));
  return Promise.all(
    hooks.map(async (hook) => {
      try {
        const answer = await fetch(hook.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-svc-event': 'push',
            'x-svc-delivery': randomUUID(),
            'x-svc-signature': signature(body, hook.secret),
          },
          body,
          signal: AbortSignal.timeout(30_000),
        });
        await answer.arrayBuffer();
        return answer.status;
      } catch {
        return 0;
      }
    }),
  );
}

type RepoIdentity = ScmRepoRef & { uid: string };

/** Verifies and reads a webhook of the built-in provider. */
export async function parseLocalHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<ScmHookResult> {
  return withDelivery(await readHook(request, secretOf), request, ['x-svc-delivery']);
}

async function readHook(
  request: ScmHookRequest,
  secretOf: (repo: RepoIdentity) => Promise<string | undefined>,
): Promise<HookEvent> {
  const signed = request.headers['x-svc-signature'];
  if (signed === undefined || !signed.startsWith('sha256='))
    throw new UnauthorizedError('local git webhook: no X-SVC-Signature header');
  const body = readHookJson('local git', request.body);
  const identity = z.object({ repository: pushPayload.shape.repository }).safeParse(body);
  if (!identity.success)
    throw new UnauthorizedError(
      'local git webhook: the payload names no repository whose secret could verify it',
    );
  const { repository } = identity.data;
  const repo: RepoIdentity = {
    namespace: repository.owner,
    name: repository.name,
    uid: String(repository.id),
  };
  const secret = await secretOf(repo);
  if (secret === undefined || secret === '')
    throw new UnauthorizedError(
      `local git webhook: repository ${repo.namespace}/${repo.name} is unknown or has no secret`,
    );
  if (!hmacSha256Matches(request.body, secret, signed.slice('sha256='.length).trim()))
    throw new UnauthorizedError(
      `local git webhook: the signature does not match for ${repo.namespace}/${repo.name}`,
    );
  const event = request.headers['x-svc-event'];
  if (event !== 'push')
    throw new InvalidInputError(`local git webhook: event ${event ?? '(none)'} is not one svc sends`);
  const push = readHookPayload('local git', event, pushPayload, body);
  return fromPush(repo, push);
}

function fromPush(repo: RepoIdentity, push: PushPayload): HookEvent {
  const tag = push.ref.startsWith('refs/tags/');
  if (ZERO.test(push.after)) return { kind: 'ignored', reason: `${tag ? 'tag' : 'branch'} deleted` };
  if (!tag && !push.ref.startsWith('refs/heads/'))
    return { kind: 'ignored', reason: `ref ${push.ref} is not built` };
  const name = push.ref.replace(/^refs\/(heads|tags)\//, '');
  return {
    kind: 'build',
    repo,
    build: {
      event: tag ? 'tag' : 'push',
      action: tag ? 'created' : '',
      ref: push.ref,
      before: push.before,
      after: push.commit.sha,
      source: name,
      target: name,
      sourceRepo: `${repo.namespace}/${repo.name}`,
      fork: false,
      title: '',
      message: push.commit.message,
      link: push.link,
      authorLogin: '',
      authorName: push.commit.author_name,
      authorEmail: push.commit.author_email,
      authorAvatar: '',
      sender: push.sender,
    },
  };
}
