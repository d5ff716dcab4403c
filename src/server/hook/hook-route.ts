import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UnauthorizedError } from '../../core/errors.js';
import type { HookDeliveryStore } from '../../core/hook-delivery.js';
import type { Repo, RepoStore } from '../../core/repo.js';
import type { ScmHookRequest, ScmProvider, ScmRepoRef } from '../../core/scm.js';
import { buildJson } from '../api/json/build.js';
import type { Trigger } from '../trigger/index.js';
import { deliveryKeys } from './delivery-keys.js';

/**
 * What the webhook endpoint needs: repositories (for their secrets), the provider, the trigger, and
 * the deliveries taken lately (so that one sent again makes no second build).
 */
export interface HookDeps {
  readonly repos: Pick<RepoStore, 'findUid' | 'findSlug'>;
  readonly provider: Pick<ScmProvider, 'parseHook'>;
  readonly trigger: Pick<Trigger, 'trigger'>;
  readonly deliveries: Pick<HookDeliveryStore, 'claim' | 'forget'>;
  readonly now?: () => number;
}

/**
 * POST /hook: the git provider's webhooks. The body is kept as raw bytes (signatures are computed
 * over them), so this route lives in its own scope whose only content-type parser is a Buffer one.
 * The provider adapter verifies the signature with the secret of the repository the hook names;
 * only active repositories have one, so hooks for unknown or disabled repositories are 401 and
 * nothing is stored. Every refusal answers the same text, so that a hook cannot probe which
 * (private) repositories are enabled. A 200 answer means the outcome is durable: the build (if any) is in the database.
 *
 * A verified delivery that asks for a build is taken once (docs/webhooks.md): its keys — the
 * provider's delivery id and the digest of its body — are claimed in the database first, atomically
 * across servers, and a delivery whose keys were claimed before (a provider's retry, or a captured
 * delivery replayed) is answered 200 `duplicate` without a build. Claims come only after the
 * signature verified, so that nobody without the secret can use up a delivery's id before the
 * provider sends it. A claim whose build could not be created is forgotten again, so that the
 * provider's redelivery (same id, same body) makes the build: the claim is not in the build's
 * transaction because making a build calls the provider (the pipeline file) in between.
 */
/** The one answer to a hook that is not verified, whatever the reason (the log has it). */
export const UNVERIFIED = 'the hook cannot be verified: unknown repository or wrong signature';

export function hookRoute(app: FastifyInstance, deps: HookDeps): void {
  void app.register((scope, _options, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, parsed) => parsed(null, body));
    scope.post('/hook', async (request) => {
      let verifiedFor: Repo | undefined;
      const secretOf = async (ref: ScmRepoRef & { uid: string }): Promise<string | undefined> => {
        const repo = await repoOfHook(deps.repos, ref);
        verifiedFor = repo !== undefined && repo.active && repo.hookSecret !== '' ? repo : undefined;
        return verifiedFor?.hookSecret;
      };
      const hook = hookRequestOf(request);
      let result: Awaited<ReturnType<typeof deps.provider.parseHook>>;
      try {
        result = await deps.provider.parseHook(hook, secretOf);
      } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw error;
        // The adapter's reason (unknown repository, no secret, bad signature) stays in the log: told
        // to the sender, it would confirm which private repositories are enabled here.
        request.log.info({ reason: error.message }, 'hook refused');
        throw new UnauthorizedError(UNVERIFIED);
      }
      if (result.kind === 'ignored') {
        request.log.info({ reason: result.reason }, 'hook ignored');
        return { result: 'ignored', reason: result.reason };
      }
      // The adapter must have asked for the secret to verify the hook; without that, trust nothing.
      if (verifiedFor === undefined) {
        request.log.info('hook refused: the provider adapter verified it with no repository’s secret');
        throw new UnauthorizedError(UNVERIFIED);
      }
      const repo = verifiedFor;
      const keys = deliveryKeys(result.delivery, hook.body);
      if (!(await deps.deliveries.claim(repo.id, keys, (deps.now ?? Date.now)()))) {
        request.log.warn(
          { repo: repo.slug, delivery: result.delivery },
          'hook: this delivery was taken before (a retry, or a replay): no build',
        );
        return { result: 'duplicate', delivery: result.delivery };
      }
      let outcome: Awaited<ReturnType<typeof deps.trigger.trigger>>;
      try {
        outcome = await deps.trigger.trigger(repo, result.build);
      } catch (error) {
        await deps.deliveries.forget(repo.id, keys).catch((forgetting: unknown) => {
          request.log.warn({ err: forgetting }, 'hook: the failed delivery could not be forgotten');
        });
        throw error;
      }
      if (outcome.kind === 'skipped') {
        request.log.info({ repo: repo.slug, reason: outcome.reason }, 'hook: no build');
        return { result: 'skipped', reason: outcome.reason };
      }
      request.log.info(
        { repo: repo.slug, build: outcome.build.number, status: outcome.build.status },
        'hook: build created',
      );
      return { result: 'created', build: buildJson(outcome.build, outcome.stages) };
    });
    done();
  });
}

function hookRequestOf(request: FastifyRequest): ScmHookRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  return { headers, body };
}

/**
 * The record a hook is for: the one holding the repository's uid. A record found by name only
 * counts when one side has no uid (a payload that names none, a record from before uids): a
 * repository deleted and created again under its name must not reach the old record, its secret
 * and its settings.
 */
async function repoOfHook(
  repos: HookDeps['repos'],
  ref: ScmRepoRef & { uid: string },
): Promise<Repo | undefined> {
  const own = ref.uid === '' ? undefined : await repos.findUid(ref.uid);
  if (own !== undefined) return own;
  const named = await repos.findSlug(ref.namespace, ref.name);
  return named !== undefined && (ref.uid === '' || named.uid === '') ? named : undefined;
}
