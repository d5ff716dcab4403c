import { z } from 'zod';
import { InvalidInputError, NotFoundError } from '../../../core/errors.js';
import type { Template, TemplateStore } from '../../../core/template.js';
import type { RepoStore } from '../../../core/repo.js';
import { templateJson } from '../json/template.js';
import type { NamespaceAccess } from '../namespace-access.js';
import { ADMIN, NAMESPACE_ADMIN, NAMESPACE_READ, route, type ApiRoute } from '../route.js';
import { templateSchema } from '../schemas.js';
import { NamespaceParams, NewTemplateBody, TemplatePatch, TemplateParams } from './input.js';

/** What the template routes need. */
export interface TemplateDeps {
  readonly templates: Pick<TemplateStore, 'findName' | 'list' | 'listAll' | 'create' | 'update' | 'delete'>;
  /** Decides who may move a template to another namespace (its administrators only). */
  readonly namespaces: Pick<NamespaceAccess, 'check'>;
  /** The provider's ids of namespaces, to bind templates to (as organization secrets are). */
  readonly repos: Pick<RepoStore, 'findNamespaceUid'>;
}

/**
 * Drone's template API (handler/api/template, its routes in handler/api/api.go): `GET /api/templates`
 * lists every namespace's for svc administrators; under `/api/templates/{namespace}` the
 * namespace's members read its templates and its administrators add, change (PATCH, or PUT as
 * Drone also routes it) and delete them, as for organization secrets. Moving a template to another
 * namespace (`namespace` in an update, as Drone allows) also needs administering that namespace,
 * which Drone does not check.
 */
export function templateRoutes(deps: TemplateDeps): ApiRoute[] {
  const find = async (namespace: string, name: string): Promise<Template> => {
    const template = await deps.templates.findName(namespace, name);
    if (template === undefined) throw new NotFoundError(`template ${name}`);
    return template;
  };
  const tag = 'templates';
  const update = (method: 'PATCH' | 'PUT') =>
    route({
      method,
      path: '/api/templates/:namespace/:name',
      access: NAMESPACE_ADMIN,
      tag,
      summary:
        method === 'PATCH'
          ? 'Changes a template’s text, or moves it to another namespace its caller administers'
          : 'Changes a template (Drone’s alias of PATCH)',
      params: TemplateParams,
      body: TemplatePatch,
      response: { schema: templateSchema, description: 'the template as changed' },
      async handler({ params, body, principal }) {
        const template = await find(params.namespace, params.name);
        if (body.name !== undefined && body.name !== template.name)
          throw new InvalidInputError(
            'name: a template cannot be renamed; add it under the new name and delete this one',
          );
        const namespace = body.namespace ?? template.namespace;
        if (namespace !== template.namespace) await deps.namespaces.check(namespace, principal, 'admin');
        const moved = namespace !== template.namespace;
        const changed = {
          ...template,
          namespace,
          data: body.data ?? template.data,
          namespaceUid: moved ? await deps.repos.findNamespaceUid(namespace) : template.namespaceUid,
        };
        return templateJson(await deps.templates.update(changed));
      },
    });
  const listAll = (path: string, summary: string) =>
    route({
      method: 'GET',
      path,
      access: ADMIN,
      tag,
      summary,
      response: { schema: z.array(templateSchema), description: 'the templates, by namespace and name' },
      handler: async () => (await deps.templates.listAll()).map(templateJson),
    });
  return [
    listAll('/api/templates', 'Every template of every namespace'),
    // `drone template ls` without a namespace asks drone-go for `/api/templates/` (an empty one).
    listAll('/api/templates/', 'Every template of every namespace (as drone template ls asks for it)'),
    route({
      method: 'GET',
      path: '/api/templates/:namespace',
      access: NAMESPACE_READ,
      tag,
      summary: 'The namespace’s templates, by name',
      params: NamespaceParams,
      response: { schema: z.array(templateSchema), description: 'the templates' },
      handler: async ({ params }) => (await deps.templates.list(params.namespace)).map(templateJson),
    }),
    route({
      method: 'POST',
      path: '/api/templates/:namespace',
      access: NAMESPACE_ADMIN,
      tag,
      summary: 'Adds a template to the namespace (409 when the name is taken)',
      params: NamespaceParams,
      body: NewTemplateBody,
      response: { schema: templateSchema, description: 'the template' },
      async handler({ params, body }) {
        if (body.namespace !== undefined && body.namespace !== '' && body.namespace !== params.namespace)
          throw new InvalidInputError(
            `namespace: "${body.namespace}" is not the namespace of the path ("${params.namespace}")`,
          );
        const template = await deps.templates.create({
          namespace: params.namespace,
          name: body.name,
          data: body.data,
          namespaceUid: await deps.repos.findNamespaceUid(params.namespace),
        });
        return templateJson(template);
      },
    }),
    route({
      method: 'GET',
      path: '/api/templates/:namespace/:name',
      access: NAMESPACE_READ,
      tag,
      summary: 'One template, with its text',
      params: TemplateParams,
      response: { schema: templateSchema, description: 'the template' },
      handler: async ({ params }) => templateJson(await find(params.namespace, params.name)),
    }),
    update('PATCH'),
    update('PUT'),
    route({
      method: 'DELETE',
      path: '/api/templates/:namespace/:name',
      access: NAMESPACE_ADMIN,
      tag,
      summary: 'Deletes a template',
      params: TemplateParams,
      response: { status: 204, description: 'deleted' },
      async handler({ params, reply }) {
        const template = await find(params.namespace, params.name);
        await deps.templates.delete(template.id);
        return reply.code(204).send();
      },
    }),
  ];
}
