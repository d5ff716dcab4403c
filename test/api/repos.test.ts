import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newBuild } from '../../src/store/cases/fixtures.case.js';
import { call, loginAs, tokenOf, type BrowserSession } from './client.js';
import { startHarness, type Harness } from './harness.js';

interface RepoJson {
  slug: string;
  active: boolean;
  private: boolean;
  user_id: number;
  permissions?: { read: boolean; write: boolean; admin: boolean };
  build?: { number: number };
  recent?: { number: number; status: string; started: number; finished: number }[];
}

describe('repositories: sync, enable, read access', () => {
  let h: Harness;
  let owner: BrowserSession;
  let writer: BrowserSession;
  let outsider: BrowserSession;
  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['octocat', 'writer', 'outsider']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'octocat', name: 'hello', admins: ['octocat'], writers: ['writer'] });
    h.github.addRepo({
      owner: 'octocat',
      name: 'secret',
      private: true,
      admins: ['octocat'],
      readers: ['writer'],
    });
    h.github.addRepo({ owner: 'acme', name: 'tools', writers: ['octocat'] });
    [owner, writer, outsider] = [
      await loginAs(h, 'octocat'),
      await loginAs(h, 'writer'),
      await loginAs(h, 'outsider'),
    ];
  });
  afterAll(() => h.close());

  it('lists the caller’s repositories synced from the provider, with permissions', async () => {
    const answer = await call(h, '/api/user/repos', { session: owner });
    expect(answer.status).toBe(200);
    const repos = answer.json as RepoJson[];
    expect(repos.map((r) => [r.slug, r.permissions])).toEqual([
      ['acme/tools', { read: true, write: true, admin: false }],
      ['octocat/hello', { read: true, write: true, admin: true }],
      ['octocat/secret', { read: true, write: true, admin: true }],
    ]);
    expect(repos.every((r) => !r.active)).toBe(true);
    expect(answer.text).not.toMatch(/hook_?secret/i);
    const stored = await h.store.repos.findSlug('octocat', 'secret');
    expect(stored).toMatchObject({ private: true, active: false, scm: h.provider?.name, userId: 0 });
    expect(stored?.uid).toMatch(/^\d+$/);
  });

  it('drops permissions the provider no longer lists on the next sync', async () => {
    h.github.addRepo({ owner: 'octocat', name: 'temp', admins: ['octocat'], readers: ['outsider'] });
    expect(
      ((await call(h, '/api/user/repos', { session: outsider })).json as RepoJson[]).map((r) => r.slug),
    ).toEqual(['octocat/temp']);
    const repo = await h.store.repos.findSlug('octocat', 'temp');
    const user = await h.store.users.findLogin('outsider');
    expect(await h.store.perms.find(user?.id ?? 0, repo?.id ?? 0)).toBeDefined();
    await h.store.perms.upsert({
      userId: user?.id ?? 0,
      repoId: (await h.store.repos.findSlug('octocat', 'hello'))?.id ?? 0,
      read: true,
      write: false,
      admin: false,
      synced: Date.now(),
    });
    await call(h, '/api/user/repos', { method: 'POST', session: outsider, csrf: outsider.csrf });
    expect(await h.store.repos.listUser(user?.id ?? 0)).toHaveLength(1);
  });

  // A collaborator who revokes svc's grant at the provider must not keep their rights through svc's
  // API token: once the stored rights are older than the refresh window, a refused token ends them.
  it('ends stale rights when the provider refuses the caller’s token', async () => {
    h.github.addUser({ login: 'leaver' });
    h.github.addRepo({
      owner: 'octocat',
      name: 'vault',
      private: true,
      admins: ['octocat'],
      readers: ['leaver'],
    });
    const leaver = await loginAs(h, 'leaver');
    const token = await tokenOf(h, leaver);
    await call(h, '/api/user/repos', { method: 'POST', session: leaver, csrf: leaver.csrf });
    expect((await call(h, '/api/repos/octocat/vault', { token })).status).toBe(200);
    const user = await h.store.users.findLogin('leaver');
    const repo = await h.store.repos.findSlug('octocat', 'vault');
    if (user === undefined || repo === undefined) throw new Error('no user or repository');
    // The grant is revoked (the provider answers 401 Bad credentials), and the rights are stale.
    await h.store.users.update({ ...user, scmToken: 'revoked-at-the-provider' });
    const stored = await h.store.perms.find(user.id, repo.id);
    if (stored === undefined) throw new Error('no stored rights');
    await h.store.perms.upsert({ ...stored, synced: Date.now() - 2 * 60 * 60_000 });
    expect((await call(h, '/api/repos/octocat/vault', { token })).status).toBe(404);
    expect(await h.store.perms.find(user.id, repo.id)).toMatchObject({
      read: false,
      write: false,
      admin: false,
    });
  });

  it('enables a repository for an admin: active, owned, secret stored, webhook at /hook', async () => {
    const answer = await call(h, '/api/repos/octocat/hello', {
      method: 'POST',
      session: owner,
      csrf: owner.csrf,
    });
    expect(answer.status).toBe(200);
    const json = answer.json as RepoJson;
    const user = await h.store.users.findLogin('octocat');
    expect(json).toMatchObject({ slug: 'octocat/hello', active: true, user_id: user?.id });
    const stored = await h.store.repos.findSlug('octocat', 'hello');
    expect(stored?.hookSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(answer.text).not.toContain(stored?.hookSecret ?? 'no secret');
    const hooks = h.github.hooks('octocat/hello');
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({ url: `${h.url}/hook`, secret: stored?.hookSecret });
    expect(hooks[0]?.events).toEqual(expect.arrayContaining(['push', 'pull_request']));
  });

  it('enabling again replaces the secret in the one webhook', async () => {
    const before = (await h.store.repos.findSlug('octocat', 'hello'))?.hookSecret;
    await call(h, '/api/repos/octocat/hello', { method: 'POST', session: owner, csrf: owner.csrf });
    const after = (await h.store.repos.findSlug('octocat', 'hello'))?.hookSecret;
    expect(after).not.toBe(before);
    expect(h.github.hooks('octocat/hello')).toEqual([expect.objectContaining({ secret: after })]);
  });

  it('refuses to enable for users who do not administer the repository', async () => {
    const byWriter = await call(h, '/api/repos/octocat/secret', {
      method: 'POST',
      session: writer,
      csrf: writer.csrf,
    });
    expect(byWriter.status).toBe(403);
    expect(byWriter.json).toEqual({
      code: 'FORBIDDEN',
      message: 'admin rights on octocat/secret at the git provider are needed',
    });
    const byOutsider = await call(h, '/api/repos/octocat/secret', {
      method: 'POST',
      session: outsider,
      csrf: outsider.csrf,
    });
    expect(byOutsider.status).toBe(404);
    const byOrgWriter = await call(h, '/api/repos/acme/tools', {
      method: 'POST',
      session: owner,
      csrf: owner.csrf,
    });
    expect(byOrgWriter.status).toBe(403);
    expect(h.github.hooks('octocat/secret')).toEqual([]);
    expect((await h.store.repos.findSlug('octocat', 'secret'))?.active).toBe(false);
  });

  it('lets anyone read a public repository and only members a private one', async () => {
    const anonymous = await call(h, '/api/repos/octocat/hello');
    expect(anonymous.status).toBe(200);
    expect(anonymous.json).not.toHaveProperty('permissions');
    expect((await call(h, '/api/repos/octocat/hello', { session: writer })).json).toMatchObject({
      permissions: { read: true, write: true, admin: false },
    });
    expect((await call(h, '/api/repos/octocat/secret')).status).toBe(401);
    const hidden = await call(h, '/api/repos/octocat/secret', { session: outsider });
    expect(hidden.status).toBe(404);
    expect(hidden.json).toEqual({ code: 'NOT_FOUND', message: 'repository not found' });
    const token = await tokenOf(h, writer);
    expect((await call(h, '/api/repos/octocat/secret', { token })).json).toMatchObject({
      slug: 'octocat/secret',
    });
    expect((await call(h, '/api/repos/nobody/nothing', { session: owner })).status).toBe(404);
  });

  it('adds the newest build with ?latest=true', async () => {
    h.github.commit('octocat/hello', 'main', {
      '.drone.yml':
        'kind: pipeline\ntype: docker\nname: default\nsteps:\n- name: a\n  image: alpine\n  commands: [true]\n',
    });
    expect(await h.github.push('octocat/hello', 'main', `${h.url}/hook`)).toBe(200);
    const repos = (await call(h, '/api/user/repos?latest=true', { session: owner })).json as RepoJson[];
    expect(repos.find((r) => r.slug === 'octocat/hello')?.build).toMatchObject({
      number: 1,
      status: 'pending',
    });
    expect(repos.find((r) => r.slug === 'acme/tools')).not.toHaveProperty('build');
  });

  it('adds each repository’s last builds with ?recent=N, newest first, times in epoch seconds', async () => {
    const tools = await h.store.repos.findSlug('acme', 'tools');
    if (tools === undefined) throw new Error('acme/tools is synced');
    const started = 1_700_000_000_000;
    for (const [status, seconds] of [
      ['failure', 30],
      ['success', 95],
      ['success', 190],
    ] as const) {
      await h.store.builds.create(
        newBuild(tools.id, { status, started, finished: started + seconds * 1000 }),
        [],
      );
    }
    await h.store.builds.create(newBuild(tools.id, { status: 'running', started: started + 500 }), []);
    const answer = await call(h, '/api/user/repos?latest=true&recent=3', { session: owner });
    expect(answer.status).toBe(200);
    const repos = answer.json as RepoJson[];
    const listed = repos.find((r) => r.slug === 'acme/tools');
    expect(listed?.build?.number).toBe(4);
    expect(listed?.recent).toEqual([
      { number: 4, status: 'running', started: 1_700_000_000, finished: 0 },
      { number: 3, status: 'success', started: 1_700_000_000, finished: 1_700_000_190 },
      { number: 2, status: 'success', started: 1_700_000_000, finished: 1_700_000_095 },
    ]);
    // Every repository gets the list when it is asked for, empty without builds.
    expect(repos.find((r) => r.slug === 'octocat/secret')?.recent).toEqual([]);
    // Without ?recent there is none; it does not need ?latest.
    const plain = (await call(h, '/api/user/repos?latest=true', { session: owner })).json as RepoJson[];
    expect(plain.every((r) => r.recent === undefined)).toBe(true);
    const alone = (await call(h, '/api/user/repos?recent=1', { session: owner })).json as RepoJson[];
    expect(alone.find((r) => r.slug === 'acme/tools')).toMatchObject({ recent: [{ number: 4 }] });
    expect(alone.find((r) => r.slug === 'acme/tools')).not.toHaveProperty('build');
  });

  it('refuses ?recent= other than a whole number from 1 to 50', async () => {
    for (const value of ['0', '51', '2.5', 'many', '', '-1']) {
      const answer = await call(h, `/api/user/repos?latest=true&recent=${value}`, { session: owner });
      expect(answer.status, value).toBe(400);
      expect((answer.json as { message: string }).message).toBe(
        'recent: must be a whole number of builds from 1 to 50',
      );
    }
    expect((await call(h, '/api/user/repos?recent=50', { session: owner })).status).toBe(200);
  });
});

describe('webhooks behind a proxy', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ proxy: { proto: 'https', host: 'hooks.example.com:8443' } });
    h.github.addUser({ login: 'octocat' });
    h.github.addRepo({ owner: 'octocat', name: 'hello', admins: ['octocat'] });
  });
  afterAll(() => h.close());

  it('creates the webhook at the proxy address', async () => {
    const session = await loginAs(h, 'octocat');
    expect(
      (await call(h, '/api/repos/octocat/hello', { method: 'POST', session, csrf: session.csrf })).status,
    ).toBe(200);
    expect(h.github.hooks('octocat/hello').map((hook) => hook.url)).toEqual([
      'https://hooks.example.com:8443/hook',
    ]);
  });
});
