/*
 * Organization secrets through HTTP: membership asked from the git provider (the GitHub double's
 * organization members and administrators), Drone's routes including POST as the update alias, and
 * GET /api/secrets for svc administrators.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, loginAs, tokenOf, type Answer } from './client.js';
import { startHarness, type Harness } from './harness.js';

const VALUE = 'org-wide-token-value-0123456789';

describe('organization secrets', () => {
  let h: Harness;
  const tokens: Record<string, string> = {};
  const as = (who: string, method: string, path: string, body?: unknown): Promise<Answer> =>
    call(h, path, { method, token: tokens[who], body });

  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'owner', orgAdmin: ['acme'] });
    h.github.addUser({ login: 'member', orgs: ['acme'] });
    h.github.addUser({ login: 'stranger', orgs: ['other-org'] });
    h.github.addUser({ login: 'root' });
    for (const login of ['owner', 'member', 'stranger', 'root'])
      tokens[login] = await tokenOf(h, await loginAs(h, login));
    const root = await h.store.users.findLogin('root');
    await h.store.users.update({ ...root!, admin: true });
  });
  afterAll(() => h.close());

  it('lets the organization’s administrators add, change and delete, and its members read', async () => {
    const created = await as('owner', 'POST', '/api/secrets/acme', { name: 'docker_password', data: VALUE });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toEqual({
      id: expect.any(Number) as unknown,
      namespace: 'acme',
      name: 'docker_password',
      pull_request: false,
      pull_request_push: false,
    });

    const listed = await as('member', 'GET', '/api/secrets/acme');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json).toEqual([created.json]);
    const found = await as('member', 'GET', '/api/secrets/acme/docker_password');
    expect(found.json).toEqual(created.json);

    const refused = await as('member', 'POST', '/api/secrets/acme', { name: 'mine', data: 'v' });
    expect(refused.status).toBe(403);
    expect((await as('member', 'PATCH', '/api/secrets/acme/docker_password', { data: 'x' })).status).toBe(
      403,
    );
    expect((await as('member', 'DELETE', '/api/secrets/acme/docker_password')).status).toBe(403);

    const patched = await as('owner', 'PATCH', '/api/secrets/acme/docker_password', { pull_request: true });
    expect(patched.json).toMatchObject({ pull_request: true, pull_request_push: false });
    // Drone's alias: POST to the secret's address updates it.
    const posted = await as('owner', 'POST', '/api/secrets/acme/docker_password', { data: `${VALUE}-2` });
    expect(posted.status, posted.text).toBe(200);
    expect(posted.json).toMatchObject({ pull_request: true });
    const stored = await h.store.secrets.findName(
      { kind: 'namespace', namespace: 'acme' },
      'docker_password',
    );
    expect(stored).toMatchObject({ data: `${VALUE}-2`, pullRequest: true });

    for (const answer of [created, listed, found, patched, posted]) expect(answer.text).not.toContain(VALUE);

    expect((await as('owner', 'DELETE', '/api/secrets/acme/docker_password')).status).toBe(204);
    expect((await as('member', 'GET', '/api/secrets/acme/docker_password')).status).toBe(404);
  });

  it('answers 404 to everyone else, so that organizations do not leak', async () => {
    for (const [method, path] of [
      ['GET', '/api/secrets/acme'],
      ['GET', '/api/secrets/acme/anything'],
      ['POST', '/api/secrets/acme'],
      ['DELETE', '/api/secrets/acme/anything'],
    ] as const) {
      const answer = await as(
        'stranger',
        method,
        path,
        method === 'POST' ? { name: 'x', data: 'y' } : undefined,
      );
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.json).toMatchObject({ code: 'NOT_FOUND', message: 'namespace acme not found' });
    }
    expect((await call(h, '/api/secrets/acme')).status).toBe(401);
  });

  it('lets users keep secrets for their own namespace', async () => {
    const own = await as('stranger', 'POST', '/api/secrets/stranger', { name: 'personal', data: 'v' });
    expect(own.status, own.text).toBe(200);
    expect((await as('stranger', 'GET', '/api/secrets/stranger')).json).toEqual([own.json]);
    expect((await as('member', 'GET', '/api/secrets/stranger')).status).toBe(404);
  });

  it('validates names and refuses duplicates', async () => {
    const bad = await as('owner', 'POST', '/api/secrets/acme', { name: 'no spaces', data: 'v' });
    expect(bad.status).toBe(400);
    expect((bad.json as { message: string }).message).toMatch(/^name: /);
    expect((await as('owner', 'POST', '/api/secrets/acme', { name: 'once', data: 'v' })).status).toBe(200);
    expect((await as('owner', 'POST', '/api/secrets/acme', { name: 'once', data: 'w' })).status).toBe(409);
  });

  it('lists every namespace’s secrets for svc administrators only', async () => {
    const all = await as('root', 'GET', '/api/secrets');
    expect(all.status).toBe(200);
    const names = (all.json as { namespace: string; name: string }[]).map((s) => `${s.namespace}/${s.name}`);
    expect(names).toEqual(['acme/once', 'stranger/personal']);
    expect((await as('owner', 'GET', '/api/secrets')).status).toBe(403);
    // svc administrators may act on any namespace.
    expect((await as('root', 'GET', '/api/secrets/acme')).status).toBe(200);
  });
});
