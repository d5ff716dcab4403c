import { z } from 'zod';
import { openApiDocument } from './openapi.js';
import { ANYONE, route, type ApiRoute } from './route.js';

/**
 * GET /api/openapi.json: the OpenAPI 3.1 document of `routes` (which this route is part of),
 * generated once, on the first request, from the schemas the routes validate with.
 */
export function openApiRoute(routes: readonly ApiRoute[], version: string): ApiRoute {
  let document: Record<string, unknown> | undefined;
  return route({
    method: 'GET',
    path: '/api/openapi.json',
    access: ANYONE,
    tag: 'meta',
    summary: 'This API as an OpenAPI 3.1 document',
    response: { schema: z.record(z.string(), z.unknown()), description: 'the OpenAPI document' },
    handler: () => Promise.resolve((document ??= openApiDocument(routes, version))),
  });
}
