import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, enable, loginAs, tokenOf, type BrowserSession } from './client.js';
import { eventually, startHarness, type Harness } from './harness.js';

const PIPELINE = `kind: pipeline
type: docker
name: build
steps:
- name: test
  image: busybox
  commands: [echo ok]
`;

interface RepoWithBuild {
  slug: string;
  user_id: number;
  build?: { number: number; status: string; message: string };
}

describe('account and repository routes', () => {
  let h: Harness;
  let octocat: BrowserSession;
  let token: string;
  let hubot: string;
  let reader: string;
  let root: string;
  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['octocat', 'hubot', 'reader', 'root']) h.github.addUser({ login });
    for (const name of ['app', 'lib', 'idle']) {
      h.github.addRepo({
        owner: 'octocat',
        name,
        private: true,
        admins: ['octocat', 'hubot'],
        readers: ['reader'],
      });
    }
    octocat = await loginAs(h, 'octocat');
    token = await tokenOf(h, octocat);
    hubot = await tokenOf(h, await loginAs(h, 'hubot'));
    reader = await tokenOf(h, await loginAs(h, 'reader'));
    root = await tokenOf(h, await loginAs(h, 'root'));
    const rootUser = await h.store.users.findLogin('root');
    if (rootUser !== undefined) await h.store.users.update({ ...rootUser, admin: true });
    await enable(h, octocat, 'octocat/app');
    await enable(h, octocat, 'octocat/lib');
    for (const who of [token, hubot, reader])
      expect((await call(h, '/api/user/repos', { token: who })).status).toBe(200);
  });
  afterAll(() => h.close());

  let n = 0;
  async function push(slug: string): Promise<void> {
    n += 1;
    h.github.commit(slug, 'main', { '.drone.yml': PIPELINE, 'n.txt': String(n) }, `commit ${n}`);
    expect(await h.github.push(slug, 'main', `${h.url}/hook`)).toBe(200);
  }

  describe('PATCH /api/user', () => {
    it('changes the caller’s email address, and nothing else', async () => {
      const changed = await call(h, '/api/user', {
        method: 'PATCH',
        token,
        body: { email: 'octo@example.org' },
      });
      expect(changed.status).toBe(200);
      expect(changed.json).toMatchObject({ login: 'octocat', email: 'octo@example.org', admin: false });
      expect(changed.json).not.toHaveProperty('token');
      expect((await call(h, '/api/user', { token })).json).toMatchObject({ email: 'octo@example.org' });
      expect((await h.store.users.findLogin('octocat'))?.email).toBe('octo@example.org');
    });

    it('refuses other fields and malformed addresses with a 400 that names them', async () => {
      const admin = await call(h, '/api/user', { method: 'PATCH', token, body: { admin: true } });
      expect(admin.status).toBe(400);
      expect(admin.json).toMatchObject({ code: 'INVALID_INPUT' });
      expect((admin.json as { message: string }).message).toMatch(/admin/);
      const bad = await call(h, '/api/user', { method: 'PATCH', token, body: { email: 'not an address' } });
      expect(bad.status).toBe(400);
      expect((bad.json as { message: string }).message).toMatch(/^email:/);
      expect((await h.store.users.findLogin('octocat'))?.admin).toBe(false);
    });

    it('needs the CSRF token with the session cookie, and a caller', async () => {
      const body = { email: 'x@example.org' };
      expect((await call(h, '/api/user', { method: 'PATCH', session: octocat, body })).status).toBe(403);
      expect((await call(h, '/api/user', { method: 'PATCH', body })).status).toBe(401);
      const ok = await call(h, '/api/user', { method: 'PATCH', session: octocat, csrf: octocat.csrf, body });
      expect(ok.status).toBe(200);
    });
  });

  describe('GET /api/user/builds', () => {
    it('lists the newest builds of the caller’s repositories with their repositories, newest first', async () => {
      await push('octocat/app');
      await push('octocat/lib');
      await push('octocat/app');
      await eventually(async () => ((await h.store.builds.count()) >= 3 ? true : undefined));
      for (const path of ['/api/user/builds', '/api/user/builds/recent']) {
        const answer = await call(h, path, { token: reader });
        expect(answer.status).toBe(200);
        const list = answer.json as RepoWithBuild[];
        expect(list.map((r) => [r.slug, r.build?.number, r.build?.message])).toEqual([
          ['octocat/app', 2, 'commit 3'],
          ['octocat/lib', 1, 'commit 2'],
          ['octocat/app', 1, 'commit 1'],
        ]);
        expect(list[0]).not.toHaveProperty('hook_secret');
      }
      // Someone without permissions on them sees none of them, svc administrators included.
      expect((await call(h, '/api/user/builds', { token: root })).json).toEqual([]);
    });
  });

  describe('GET /api/repos', () => {
    it('lists every repository for svc administrators, a page at a time', async () => {
      const all = await call(h, '/api/repos', { token: root });
      expect(all.status).toBe(200);
      expect((all.json as RepoWithBuild[]).map((r) => r.slug)).toEqual([
        'octocat/app',
        'octocat/idle',
        'octocat/lib',
      ]);
      const second = await call(h, '/api/repos?page=2&per_page=2', { token: root });
      expect((second.json as RepoWithBuild[]).map((r) => r.slug)).toEqual(['octocat/lib']);
      expect((await call(h, '/api/repos?per_page=101', { token: root })).status).toBe(400);
      expect((await call(h, '/api/repos', { token })).status).toBe(403);
      expect((await call(h, '/api/repos')).status).toBe(401);
    });
  });

  describe('POST /api/repos/{owner}/{name}/chown', () => {
    it('makes the caller the user svc acts as, when the provider says the caller administers it', async () => {
      const hubotId = (await h.store.users.findLogin('hubot'))?.id;
      const answer = await call(h, '/api/repos/octocat/lib/chown', { method: 'POST', token: hubot });
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({
        slug: 'octocat/lib',
        user_id: hubotId,
        permissions: { admin: true },
      });
      expect((await h.store.repos.findSlug('octocat', 'lib'))?.userId).toBe(hubotId);
      // Builds go on with the new owner's credentials.
      await push('octocat/lib');
    });

    it('refuses readers and svc administrators without rights at the provider', async () => {
      expect((await call(h, '/api/repos/octocat/app/chown', { method: 'POST', token: reader })).status).toBe(
        403,
      );
      expect((await call(h, '/api/repos/octocat/app/chown', { method: 'POST', token: root })).status).toBe(
        404,
      );
      const octocatId = (await h.store.users.findLogin('octocat'))?.id;
      expect((await h.store.repos.findSlug('octocat', 'app'))?.userId).toBe(octocatId);
    });
  });

  describe('POST /api/repos/{owner}/{name}/repair', () => {
    it('re-creates the webhook with a new secret, so that webhooks verify again', async () => {
      const before = await h.store.repos.findSlug('octocat', 'app');
      if (before === undefined) throw new Error('octocat/app is not stored');
      // The secret at the provider no longer matches svc's: every delivery is refused.
      await h.store.repos.update({ ...before, hookSecret: 'lost' });
      h.github.commit('octocat/app', 'main', { '.drone.yml': PIPELINE, 'n.txt': 'lost' }, 'lost');
      expect(await h.github.push('octocat/app', 'main', `${h.url}/hook`)).not.toBe(200);

      const repaired = await call(h, '/api/repos/octocat/app/repair', { method: 'POST', token: hubot });
      expect(repaired.status).toBe(200);
      expect(repaired.json).toMatchObject({ slug: 'octocat/app', active: true, default_branch: 'main' });
      expect(repaired.json).not.toHaveProperty('hook_secret');
      const after = await h.store.repos.findSlug('octocat', 'app');
      const hooks = h.github.hooks('octocat/app');
      expect(hooks).toHaveLength(1);
      expect(hooks[0]?.url).toBe(`${h.url}/hook`);
      expect(hooks[0]?.secret).toBe(after?.hookSecret);
      expect(after?.hookSecret).not.toBe(before.hookSecret);
      // Still owned by who enabled it: repairing does not take the repository over.
      expect(after?.userId).toBe(before.userId);
      expect(await h.github.push('octocat/app', 'main', `${h.url}/hook`)).toBe(200);
    });

    it('refuses a repository that is not enabled, or whose owner cannot act, saying what to do', async () => {
      const idle = await call(h, '/api/repos/octocat/idle/repair', { method: 'POST', token });
      expect(idle.status).toBe(409);
      expect((idle.json as { message: string }).message).toMatch(
        /octocat\/idle is not enabled.*POST \/api\/repos\/octocat\/idle/,
      );
      const app = await h.store.repos.findSlug('octocat', 'app');
      if (app === undefined) throw new Error('octocat/app is not stored');
      await h.store.repos.update({ ...app, userId: 0 });
      const orphan = await call(h, '/api/repos/octocat/app/repair', { method: 'POST', token });
      expect(orphan.status).toBe(409);
      expect((orphan.json as { message: string }).message).toMatch(/chown/);
      expect((await call(h, '/api/repos/octocat/app/repair', { method: 'POST', token: reader })).status).toBe(
        403,
      );
    });
  });
});
