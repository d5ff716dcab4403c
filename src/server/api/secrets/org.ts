import { z } from 'zod';
import { NotFoundError } from '../../../core/errors.js';
import type { RepoStore } from '../../../core/repo.js';
import type { Secret, SecretStore } from '../../../core/secret.js';
import { secretJson } from '../json/secret.js';
import { ADMIN, NAMESPACE_ADMIN, NAMESPACE_READ, route, type ApiRoute } from '../route.js';
import { secretSchema } from '../schemas.js';
import { applySecretPatch, NewSecretBody, SecretPatch, newSecretOf } from './input.js';

/** What organization secrets need. */
export interface OrgSecretDeps {
  readonly secrets: Pick<SecretStore, 'findName' | 'list' | 'listAll' | 'create' | 'update' | 'delete'>;
  /** Tells the namespace's provider id, to bind a new secret to it (secrets.ts namespaceSecrets). */
  readonly repos: Pick<RepoStore, 'findNamespaceUid'>;
}

const NamespaceParams = z.object({ namespace: z.string().min(1) });
const OrgSecretParams = NamespaceParams.extend({ name: z.string().min(1) });

/**
 * Organization secrets, as Drone's API has them: shared by every repository of a namespace (an
 * organization, or a user's own repositories). `GET /api/secrets` lists every namespace's for svc
 * administrators; under `/api/secrets/{namespace}` the organization's members read them (names and
 * flags only) and its administrators add, change and delete them, as the git provider says
 * (namespace-access.ts). `POST …/{name}` is Drone's alias of `PATCH`.
 */
export function orgSecretRoutes(deps: OrgSecretDeps): ApiRoute[] {
  const find = async (namespace: string, name: string): Promise<Secret> => {
    const secret = await deps.secrets.findName({ kind: 'namespace', namespace }, name);
    if (secret === undefined) throw new NotFoundError(`secret ${name}`);
    return secret;
  };
  const tag = 'secrets';
  const update = (method: 'PATCH' | 'POST') =>
    route({
      method,
      path: '/api/secrets/:namespace/:name',
      access: NAMESPACE_ADMIN,
      tag,
      summary:
        method === 'PATCH'
          ? 'Changes the given fields of an organization secret: its value and flags'
          : 'Changes an organization secret (Drone’s alias of PATCH)',
      params: OrgSecretParams,
      body: SecretPatch,
      response: { schema: secretSchema, description: 'the secret as changed, without its value' },
      async handler({ params, body }) {
        const secret = await find(params.namespace, params.name);
        return secretJson(await deps.secrets.update(applySecretPatch(secret, body)));
      },
    });
  return [
    route({
      method: 'GET',
      path: '/api/secrets',
      access: ADMIN,
      tag,
      summary: 'Every organization secret of every namespace, without values',
      response: { schema: z.array(secretSchema), description: 'the secrets, by namespace and name' },
      handler: async () => (await deps.secrets.listAll('namespace')).map(secretJson),
    }),
    route({
      method: 'GET',
      path: '/api/secrets/:namespace',
      access: NAMESPACE_READ,
      tag,
      summary: 'The organization’s secrets, by name, without their values',
      params: NamespaceParams,
      response: { schema: z.array(secretSchema), description: 'the secrets' },
      handler: async ({ params }) =>
        (await deps.secrets.list({ kind: 'namespace', namespace: params.namespace })).map(secretJson),
    }),
    route({
      method: 'POST',
      path: '/api/secrets/:namespace',
      access: NAMESPACE_ADMIN,
      tag,
      summary: 'Adds a secret to the organization (409 when the name is taken)',
      params: NamespaceParams,
      body: NewSecretBody,
      response: { schema: secretSchema, description: 'the secret, without its value' },
      async handler({ params, body }) {
        const secret = await deps.secrets.create({
          ...newSecretOf({ kind: 'namespace', namespace: params.namespace }, body),
          namespaceUid: await deps.repos.findNamespaceUid(params.namespace),
        });
        return secretJson(secret);
      },
    }),
    route({
      method: 'GET',
      path: '/api/secrets/:namespace/:name',
      access: NAMESPACE_READ,
      tag,
      summary: 'One organization secret, without its value',
      params: OrgSecretParams,
      response: { schema: secretSchema, description: 'the secret' },
      handler: async ({ params }) => secretJson(await find(params.namespace, params.name)),
    }),
    update('PATCH'),
    update('POST'),
    route({
      method: 'DELETE',
      path: '/api/secrets/:namespace/:name',
      access: NAMESPACE_ADMIN,
      tag,
      summary: 'Deletes an organization secret',
      params: OrgSecretParams,
      response: { status: 204, description: 'deleted' },
      async handler({ params, reply }) {
        const secret = await find(params.namespace, params.name);
        await deps.secrets.delete(secret.id);
        return reply.code(204).send();
      },
    }),
  ];
}
