import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiPath } from '../../src/server/api/openapi.js';
import { call } from './client.js';
import { startHarness, type Harness } from './harness.js';

describe('GET /api/openapi.json', () => {
  let h: Harness;
  let document: { openapi: string; paths: Record<string, Record<string, { 'x-svc-access': unknown }>> };
  beforeAll(async () => {
    h = await startHarness();
    const answer = await call(h, '/api/openapi.json');
    expect(answer.status).toBe(200);
    document = answer.json as typeof document;
  });
  afterAll(() => h.close());

  it('is an OpenAPI 3.1 document, readable without logging in', () => {
    expect(document.openapi).toBe('3.1.0');
  });

  it('holds every API route the server registers, with its access rule', () => {
    const api = h.registered.filter((r) => r.url.startsWith('/api') && r.method !== 'HEAD');
    expect(api.length).toBe(h.routes.length);
    for (const r of api) {
      const operation = document.paths[openApiPath(r.url)]?.[r.method.toLowerCase()];
      expect(operation, `${r.method} ${r.url} is missing from the OpenAPI document`).toBeDefined();
    }
    for (const route of h.routes) {
      expect(document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()]?.['x-svc-access']).toEqual(
        route.access,
      );
    }
  });

  it('describes path parameters, queries and bodies from the routes’ schemas', () => {
    const patch = document.paths['/api/repos/{owner}/{name}']?.patch as unknown as {
      parameters: { name: string; in: string }[];
      requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
    };
    expect(patch.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(['path:owner', 'path:name']);
    expect(Object.keys(patch.requestBody.content['application/json'].schema.properties)).toContain(
      'config_path',
    );
    const list = document.paths['/api/repos/{owner}/{name}/builds']?.get as unknown as {
      parameters: { name: string; in: string }[];
    };
    expect(list.parameters.map((p) => `${p.in}:${p.name}`)).toContain('query:per_page');
  });
});
