import { z } from 'zod';
import type { EnvironmentStore } from '../../../core/environment.js';
import { InvalidInputError, NotFoundError } from '../../../core/errors.js';
import type { Repo } from '../../../core/repo.js';
import type { ScmProvider } from '../../../core/scm.js';
import type { UserStore } from '../../../core/user.js';
import { scmTokenOf } from '../../auth/scm-token.js';
import { RepoParams } from '../params.js';
import { REPO_ADMIN, REPO_READ, route, type ApiRoute } from '../route.js';
import {
  checkReachable,
  environmentJson,
  EnvironmentPatch,
  NewEnvironmentBody,
  resolveApprovers,
} from './input.js';
import { environmentSchema } from './schemas.js';

/** What the environment routes need. */
export interface EnvironmentRouteDeps {
  readonly environments: Pick<EnvironmentStore, 'list' | 'find' | 'create' | 'update' | 'delete'>;
  readonly users: Pick<UserStore, 'find' | 'findLogin'>;
  readonly provider: Pick<ScmProvider, 'findTeam'> | undefined;
}

const EnvironmentParams = RepoParams.extend({ environment: z.string().min(1) });

/**
 * A repository's deployment environments (svc's addition, issue 35):
 * `GET|POST /api/repos/{owner}/{name}/environments`, `GET|PATCH|DELETE …/environments/{environment}`.
 * Readers see them (who approves is no secret to those who may read the builds); changing them
 * needs admin access to the repository, as its other settings do.
 */
export function environmentRoutes(deps: EnvironmentRouteDeps): ApiRoute[] {
  const find = async (repo: Repo, name: string) => {
    const environment = await deps.environments.find(repo.id, name);
    if (environment === undefined) throw new NotFoundError(`environment ${name}`);
    return environment;
  };
  const json = (environment: Parameters<typeof environmentJson>[0]) =>
    environmentJson(environment, deps.users);
  const tag = 'environments';
  return [
    route({
      access: REPO_READ,
      tag,
      method: 'GET',
      path: '/api/repos/:owner/:name/environments',
      summary: 'The repository’s deployment environments, by name',
      params: RepoParams,
      response: { schema: z.array(environmentSchema), description: 'the environments' },
      handler: async ({ repo }) => Promise.all((await deps.environments.list(repo.id)).map(json)),
    }),
    route({
      access: REPO_ADMIN,
      tag,
      method: 'POST',
      path: '/api/repos/:owner/:name/environments',
      summary: 'Adds a deployment environment (409 when the name is taken)',
      params: RepoParams,
      body: NewEnvironmentBody,
      response: { schema: environmentSchema, description: 'the environment' },
      async handler({ repo, body, principal }) {
        const approvers = await resolveApprovers(body.approvers, {
          users: deps.users,
          provider: deps.provider,
          token: scmTokenOf(principal.user),
        });
        const environment = {
          repoId: repo.id,
          name: body.name,
          approvers,
          required: body.required_approvals,
          branches: body.branches,
          timeout: body.timeout,
        };
        checkReachable(environment);
        return json(await deps.environments.create(environment));
      },
    }),
    route({
      access: REPO_READ,
      tag,
      method: 'GET',
      path: '/api/repos/:owner/:name/environments/:environment',
      summary: 'One deployment environment',
      params: EnvironmentParams,
      response: { schema: environmentSchema, description: 'the environment' },
      handler: async ({ repo, params }) => json(await find(repo, params.environment)),
    }),
    route({
      access: REPO_ADMIN,
      tag,
      method: 'PATCH',
      path: '/api/repos/:owner/:name/environments/:environment',
      summary: 'Changes the given fields of a deployment environment',
      params: EnvironmentParams,
      body: EnvironmentPatch,
      response: { schema: environmentSchema, description: 'the environment as changed' },
      async handler({ repo, params, body, principal }) {
        const current = await find(repo, params.environment);
        // Stages waiting for approval name their environment: a new name would leave them without
        // its approvers (anyone with write access could approve them).
        if (body.name !== undefined && body.name !== current.name)
          throw new InvalidInputError(
            'name: an environment cannot be renamed; add one under the new name and delete this one',
          );
        const approvers =
          body.approvers === undefined
            ? current.approvers
            : await resolveApprovers(body.approvers, {
                users: deps.users,
                provider: deps.provider,
                token: scmTokenOf(principal.user),
              });
        const next = {
          ...current,
          approvers,
          ...(body.required_approvals === undefined ? {} : { required: body.required_approvals }),
          ...(body.branches === undefined ? {} : { branches: body.branches }),
          ...(body.timeout === undefined ? {} : { timeout: body.timeout }),
        };
        checkReachable(next);
        return json(await deps.environments.update(next));
      },
    }),
    route({
      access: REPO_ADMIN,
      tag,
      method: 'DELETE',
      path: '/api/repos/:owner/:name/environments/:environment',
      summary: 'Deletes a deployment environment; stages waiting for it keep their approvals count',
      params: EnvironmentParams,
      response: { status: 204, description: 'deleted' },
      async handler({ repo, params, reply }) {
        await deps.environments.delete((await find(repo, params.environment)).id);
        return reply.code(204).send();
      },
    }),
  ];
}
