import { z } from 'zod';
import type { Access, ApiRoute } from './route.js';

type Json = Record<string, unknown>;

/** JSON Schema (draft 2020-12, what OpenAPI 3.1 uses) of what a client sends or gets. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}

/** The path and query parameters of an object schema, as OpenAPI parameters. */
function parameters(schema: z.ZodType | undefined, place: 'path' | 'query'): Json[] {
  if (schema === undefined) return [];
  const object = jsonSchema(schema, 'input');
  const properties = (object.properties ?? {}) as Record<string, Json>;
  const required = new Set((object.required ?? []) as string[]);
  const named: Json[] = Object.entries(properties).map(([name, property]) => ({
    // Fastify's wildcard parameter (`…/files/*`) is `{path}` in the document (openApiPath).
    name: name === '*' ? 'path' : name,
    in: place,
    required: place === 'path' || required.has(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }));
  if (place === 'query' && typeof object.additionalProperties === 'object') {
    // OpenAPI's way of spreading an object over free-form query parameters.
    named.push({
      name: 'params',
      in: 'query',
      required: false,
      description: 'any other query parameter: KEY=VALUE pairs',
      schema: { type: 'object', additionalProperties: object.additionalProperties },
      style: 'form',
      explode: true,
    });
  }
  return named;
}

/** Who may call, in words, for readers of the document. */
export function describeAccess(access: Access): string {
  switch (access.kind) {
    case 'anyone':
      return 'anyone, also anonymous callers';
    case 'user':
      return 'any logged-in account';
    case 'admin':
      return 'svc administrators';
    case 'repo':
      return access.need === 'read'
        ? 'anyone for public repositories; otherwise read access to the repository'
        : `${access.need} access to the repository`;
    case 'namespace':
      return access.need === 'read'
        ? 'members of the namespace (organization or user)'
        : 'administrators of the namespace (organization or user)';
  }
}

const ERROR_RESPONSES = {
  '400': 'INVALID_INPUT: a malformed parameter or body (the message names the field)',
  '401': 'UNAUTHORIZED: no or unknown credentials',
  '403': 'FORBIDDEN: not enough rights',
  '404': 'NOT_FOUND: no such resource, or one the caller may not see',
};

/** Fastify's `/a/:b` as OpenAPI's `/a/{b}`; a wildcard ending (`/a/*`, the rest of the path) as `/a/{path}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\/\*$/, '/{path}');
}

/** The OpenAPI 3.1 document of the route table, from the schemas the routes validate with. */
export function openApiDocument(routes: readonly ApiRoute[], version: string): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    const { response } = route;
    const content =
      response.schema === undefined
        ? response.contentType === undefined
          ? undefined
          : { [response.contentType]: { schema: { type: 'string' } } }
        : { [response.contentType ?? 'application/json']: { schema: jsonSchema(response.schema, 'output') } };
    const errors = Object.fromEntries(
      Object.entries(ERROR_RESPONSES).map(([status, description]) => [
        status,
        { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      ]),
    );
    (paths[path] ??= {})[route.method.toLowerCase()] = {
      operationId: `${route.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      summary: route.summary,
      description: `Who may call: ${describeAccess(route.access)}.`,
      tags: [route.tag],
      'x-svc-access': route.access,
      ...(route.access.kind === 'anyone' ? { security: [] } : {}),
      parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query')],
      ...(route.body === undefined
        ? {}
        : {
            requestBody: {
              required: false,
              content: { 'application/json': { schema: jsonSchema(route.body, 'input') } },
            },
          }),
      responses: {
        [String(response.status ?? 200)]: {
          description: response.description,
          ...(content === undefined ? {} : { content }),
        },
        ...errors,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc API',
      version,
      description: 'The svc server API, shaped like the Drone API (docs/api.md).',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'the API token of POST /api/user/token' },
        session: { type: 'apiKey', in: 'cookie', name: 'svc_session' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { type: 'string' }, message: { type: 'string' } },
        },
      },
    },
    security: [{ bearer: [] }, { session: [] }],
    paths,
  };
}
