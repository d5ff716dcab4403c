import { z } from 'zod';
import { NotFoundError } from '../../../core/errors.js';
import type { RunnerToken, RunnerTokenStore } from '../../../core/runner-token.js';
import { newRunnerToken } from '../../rpc/runner-tokens.js';
import { ADMIN, route, type ApiRoute } from '../route.js';

/** What the administration of runner tokens needs. */
export interface RunnerTokenDeps {
  readonly runnerTokens: RunnerTokenStore;
  readonly now?: () => number;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A runner token as the API shows it: never the token itself, except once in its creation answer. */
export const runnerTokenSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  labels: z.record(z.string(), z.string()),
  created: z.number().int().min(0),
  last_used: z
    .number()
    .int()
    .min(0)
    .describe('epoch seconds of its last use (written at most once a minute); 0: never'),
  revoked: z.number().int().min(0).describe('epoch seconds of its revocation; 0 while valid'),
  token: z.string().optional().describe('the token, in the answer that creates it only'),
});

function tokenJson(token: RunnerToken): z.infer<typeof runnerTokenSchema> {
  return {
    id: token.id,
    name: token.name,
    labels: { ...token.labels },
    created: seconds(token.created),
    last_used: seconds(token.lastUsed),
    revoked: seconds(token.revoked),
  };
}

/** Runner names as the runners' own setting (SVC_RUNNER_NAME) and the stage's `machine` hold them. */
const RunnerName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'a runner name: letters, digits, . _ - (at most 100)');
const LabelKey = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/, 'a label name');

const NewToken = z
  .object({
    name: RunnerName,
    labels: z.record(LabelKey, z.string().max(200)).default({}),
  })
  .strict();

/**
 * Runners' own credentials (svc additions), for svc administrators: `GET /api/runners/tokens`,
 * `POST /api/runners/tokens` (the token is in that answer only), `DELETE /api/runners/tokens/{name}`
 * (revokes at once: the runner's next request is refused, and the stages it holds end `error`
 * when the heartbeat watchdog finds them silent).
 */
export function runnerTokenRoutes(deps: RunnerTokenDeps): ApiRoute[] {
  const common = { access: ADMIN, tag: 'queue' } as const;
  return [
    route({
      ...common,
      method: 'GET',
      path: '/api/runners/tokens',
      summary: 'The runner tokens, by name (never the tokens themselves)',
      response: { schema: z.array(runnerTokenSchema), description: 'the runner tokens' },
      handler: async () => (await deps.runnerTokens.list()).map(tokenJson),
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/runners/tokens',
      summary: 'Makes a runner’s own token (shown in this answer only)',
      body: NewToken,
      response: { schema: runnerTokenSchema, description: 'the token, with `token`' },
      async handler({ body }) {
        const { token, hash } = newRunnerToken();
        const created = await deps.runnerTokens.create({ name: body.name, hash, labels: body.labels });
        return { ...tokenJson(created), token };
      },
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/runners/tokens/:name',
      summary: 'Revokes a runner token at once',
      params: z.object({ name: z.string().min(1) }),
      response: { status: 204, description: 'revoked' },
      async handler({ params, reply }) {
        if (!(await deps.runnerTokens.revoke(params.name, (deps.now ?? Date.now)())))
          throw new NotFoundError(`runner token ${params.name} (or it is revoked already)`);
        return reply.code(204).send();
      },
    }),
  ];
}
