import { z } from 'zod';
import { NotFoundError } from '../../../core/errors.js';
import type { Repo } from '../../../core/repo.js';
import type { Secret, SecretStore } from '../../../core/secret.js';
import { secretJson } from '../json/secret.js';
import { RepoParams } from '../params.js';
import { REPO_WRITE, route, type ApiRoute } from '../route.js';
import { secretSchema } from '../schemas.js';
import { applySecretPatch, NewSecretBody, SecretPatch, newSecretOf } from './input.js';

/** What repository secrets need. */
export interface RepoSecretDeps {
  readonly secrets: Pick<SecretStore, 'findName' | 'list' | 'create' | 'update' | 'delete'>;
}

const SecretParams = RepoParams.extend({ secret: z.string().min(1) });

/**
 * Repository secrets, as Drone's API has them: `GET|POST /api/repos/{owner}/{name}/secrets`,
 * `GET|PATCH|DELETE …/secrets/{secret}`. Like Drone, every one of them needs write access to the
 * repository (readers of a public repository must not even learn the names). Answers never carry
 * the value.
 */
export function repoSecretRoutes(deps: RepoSecretDeps): ApiRoute[] {
  const find = async (repo: Repo, name: string): Promise<Secret> => {
    const secret = await deps.secrets.findName({ kind: 'repo', repoId: repo.id }, name);
    if (secret === undefined) throw new NotFoundError(`secret ${name}`);
    return secret;
  };
  const common = { access: REPO_WRITE, tag: 'secrets' } as const;
  return [
    route({
      ...common,
      method: 'GET',
      path: '/api/repos/:owner/:name/secrets',
      summary: 'The repository’s secrets, by name, without their values',
      params: RepoParams,
      response: { schema: z.array(secretSchema), description: 'the secrets' },
      handler: async ({ repo }) =>
        (await deps.secrets.list({ kind: 'repo', repoId: repo.id })).map(secretJson),
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/repos/:owner/:name/secrets',
      summary: 'Adds a secret to the repository (409 when the name is taken)',
      params: RepoParams,
      body: NewSecretBody,
      response: { schema: secretSchema, description: 'the secret, without its value' },
      async handler({ repo, body }) {
        const secret = await deps.secrets.create(newSecretOf({ kind: 'repo', repoId: repo.id }, body));
        return secretJson(secret);
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/repos/:owner/:name/secrets/:secret',
      summary: 'One repository secret, without its value',
      params: SecretParams,
      response: { schema: secretSchema, description: 'the secret' },
      handler: async ({ repo, params }) => secretJson(await find(repo, params.secret)),
    }),
    route({
      ...common,
      method: 'PATCH',
      path: '/api/repos/:owner/:name/secrets/:secret',
      summary: 'Changes the given fields of a repository secret: its value and flags',
      params: SecretParams,
      body: SecretPatch,
      response: { schema: secretSchema, description: 'the secret as changed, without its value' },
      async handler({ repo, params, body }) {
        const secret = await find(repo, params.secret);
        return secretJson(await deps.secrets.update(applySecretPatch(secret, body)));
      },
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/repos/:owner/:name/secrets/:secret',
      summary: 'Deletes a repository secret',
      params: SecretParams,
      response: { status: 204, description: 'deleted' },
      async handler({ repo, params, reply }) {
        const secret = await find(repo, params.secret);
        await deps.secrets.delete(secret.id);
        return reply.code(204).send();
      },
    }),
  ];
}
