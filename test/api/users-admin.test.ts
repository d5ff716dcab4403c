import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, enable, loginAs, type BrowserSession } from './client.js';
import { startHarness, type Harness } from './harness.js';

describe('user administration', () => {
  let h: Harness;
  let admin: BrowserSession;
  let member: BrowserSession;
  const as = (session: BrowserSession, method: string, path: string, body?: unknown) =>
    call(h, path, { method, session, csrf: session.csrf, body });

  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['octocat', 'member']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'member', name: 'tool', admins: ['member'] });
    admin = await loginAs(h, 'octocat');
    member = await loginAs(h, 'member');
    const octocat = await h.store.users.findLogin('octocat');
    if (octocat === undefined) throw new Error('no octocat');
    await h.store.users.update({ ...octocat, admin: true });
  });
  afterAll(() => h.close());

  it('is for svc administrators only', async () => {
    const refused = await as(member, 'GET', '/api/users');
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ code: 'FORBIDDEN', message: 'only svc administrators may do this' });
    expect((await call(h, '/api/users')).status).toBe(401);
    const listed = await as(admin, 'GET', '/api/users');
    expect((listed.json as { login: string }[]).map((u) => u.login).sort()).toEqual(['member', 'octocat']);
    expect(listed.text).not.toMatch(/"token"/);
  });

  it('creates a machine account whose token only the creation answer shows', async () => {
    const created = await as(admin, 'POST', '/api/users', { login: 'deploy-bot', machine: true });
    expect(created.status, created.text).toBe(200);
    const { token } = created.json as { token: string };
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    const me = await call(h, '/api/user', { token });
    expect(me.json).toMatchObject({ login: 'deploy-bot', machine: true, admin: false });
    expect((await as(admin, 'GET', '/api/users/deploy-bot')).text).not.toContain(token);
    const twice = await as(admin, 'POST', '/api/users', { login: 'deploy-bot', machine: true });
    expect(twice.status).toBe(409);
    const bad = await as(admin, 'POST', '/api/users', { login: 'x', token: 'short' });
    expect(bad.status).toBe(400);
    expect((bad.json as { message: string }).message).toMatch(/^token: /);
  });

  it('changes and deletes users, but not the administrator doing it', async () => {
    const promoted = await as(admin, 'PATCH', '/api/users/member', { admin: true });
    expect(promoted.json).toMatchObject({ login: 'member', admin: true });
    expect((await as(admin, 'PATCH', '/api/users/octocat', { admin: false })).status).toBe(400);
    expect((await as(admin, 'DELETE', '/api/users/octocat')).status).toBe(400);
    expect((await as(admin, 'PATCH', '/api/users/nobody', { active: false })).status).toBe(404);

    await enable(h, member, 'member/tool');
    const deleted = await as(admin, 'DELETE', '/api/users/member');
    expect(deleted.status, deleted.text).toBe(204);
    expect(await h.store.users.findLogin('member')).toBeUndefined();
    expect((await as(admin, 'GET', '/api/users/member')).status).toBe(404);
  });
});
