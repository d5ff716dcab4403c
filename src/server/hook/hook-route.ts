import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UnauthorizedError } from '../../core/errors.js';
import type { Repo, RepoStore } from '../../core/repo.js';
import type { ScmHookRequest, ScmProvider, ScmRepoRef } from '../../core/scm.js';
import { buildJson } from '../api/json/build.js';
import type { Trigger } from '../trigger/index.js';

/** What the webhook endpoint needs: repositories (for their secrets), the provider, the trigger. */
export interface HookDeps {
  readonly repos: Pick<RepoStore, 'findUid' | 'findSlug'>;
  readonly provider: Pick<ScmProvider, 'parseHook'>;
  readonly trigger: Pick<Trigger, 'trigger'>;
}

/**
 * POST /hook: the git provider's webhooks. The body is kept as raw bytes (signatures are computed
 * over them), so this route lives in its own scope whose only content-type parser is a Buffer one.
 * The provider adapter verifies the signature with the secret of the repository the hook names;
 * only active repositories have one, so hooks for unknown or disabled repositories are 401 and
 * nothing is stored. Every refusal answers the same text, so that a hook cannot probe which
 * (private) repositories are enabled. A 200 answer means the outcome is durable: the build (if any) is in the database.
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
      let result: Awaited<ReturnType<typeof deps.provider.parseHook>>;
      try {
        result = await deps.provider.parseHook(hookRequestOf(request), secretOf);
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
      const outcome = await deps.trigger.trigger(verifiedFor, result.build);
      if (outcome.kind === 'skipped') {
        request.log.info({ repo: verifiedFor.slug, reason: outcome.reason }, 'hook: no build');
        return { result: 'skipped', reason: outcome.reason };
      }
      request.log.info(
        { repo: verifiedFor.slug, build: outcome.build.number, status: outcome.build.status },
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
