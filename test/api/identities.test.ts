/*
 * Identities follow the provider's immutable ids, never names that can be renamed and registered
 * again (issue 30, fault 2): accounts, repositories and organization secrets, attacked as someone
 * who registers a name that used to be another's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../src/core/build.js';
import type { Repo } from '../../src/core/repo.js';
import { secretsForBuild } from '../../src/server/rpc/index.js';
import { call, enable, loginAs, startLogin, tokenOf, type BrowserSession } from './client.js';
import { startHarness, type Harness } from './harness.js';

/** The login's answer when svc refuses it: status and page. */
async function refusedLogin(h: Harness, login: string): Promise<{ status: number; page: string }> {
  const { callback, stateCookie } = await startLogin(h, login);
  const back = await fetch(callback, { redirect: 'manual', headers: { cookie: stateCookie } });
  return { status: back.status, page: await back.text() };
}

async function stored(h: Harness, login: string) {
  const user = await h.store.users.findLogin(login);
  if (user === undefined) throw new Error(`no account ${login}`);
  return user;
}

async function repoOf(h: Harness, namespace: string, name: string): Promise<Repo> {
  const repo = await h.store.repos.findSlug(namespace, name);
  if (repo === undefined) throw new Error(`${namespace}/${name} is not stored`);
  return repo;
}

const pushOf = (repo: Repo) => ({ event: 'push', sourceRepo: repo.slug }) as Build;

describe('identities follow provider ids', () => {
  let h: Harness;
  let rootToken: string;
  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'root' });
    rootToken = await tokenOf(h, await loginAs(h, 'root'));
    await h.store.users.update({ ...(await stored(h, 'root')), admin: true });
  });
  afterAll(() => h.close());

  it('keeps a renamed person’s account, and refuses it to whoever registers the old name', async () => {
    h.github.addUser({ login: 'alice' });
    await loginAs(h, 'alice');
    const alice = await h.store.users.update({ ...(await stored(h, 'alice')), admin: true });
    expect(alice.scmUid).toMatch(/^\d+$/);
    h.github.renameUser('alice', 'alice-new');
    h.github.addUser({ login: 'alice' });

    const taken = await refusedLogin(h, 'alice');
    expect(taken.status).toBe(403);
    expect(taken.page).toContain('belongs to another person at the git provider');
    expect(taken.page).toContain('svc user update alice --login NEW-NAME');
    expect(await stored(h, 'alice')).toMatchObject({ id: alice.id, admin: true, tokenHash: alice.tokenHash });

    await loginAs(h, 'alice-new');
    expect(await stored(h, 'alice-new')).toMatchObject({
      id: alice.id,
      admin: true,
      tokenHash: alice.tokenHash,
    });
    expect(await h.store.users.findLogin('alice')).toBeUndefined();

    await loginAs(h, 'alice');
    const newcomer = await stored(h, 'alice');
    expect(newcomer.id).not.toBe(alice.id);
    expect(newcomer).toMatchObject({ admin: false });
    expect(newcomer.tokenHash).not.toBe(alice.tokenHash);
    expect(newcomer.scmUid).not.toBe(alice.scmUid);
  });

  it('lets an administrator move an account aside by renaming it', async () => {
    h.github.addUser({ login: 'bob' });
    await loginAs(h, 'bob');
    const bob = await stored(h, 'bob');
    h.github.renameUser('bob', 'robert');
    h.github.addUser({ login: 'bob' });
    expect((await refusedLogin(h, 'bob')).status).toBe(403);

    const renamed = await call(h, '/api/users/bob', {
      method: 'PATCH',
      token: rootToken,
      body: { login: 'bob-old' },
    });
    expect(renamed.status).toBe(200);
    await loginAs(h, 'bob');
    expect((await stored(h, 'bob')).id).not.toBe(bob.id);
    await loginAs(h, 'robert');
    expect((await stored(h, 'robert')).id).toBe(bob.id);
    expect(await h.store.users.findLogin('bob-old')).toBeUndefined();
  });

  it('gives an account from before svc stored ids to its own person only', async () => {
    h.github.addUser({ login: 'carol' });
    await loginAs(h, 'carol');
    // As written by the previous version: no provider id, the person's working credentials.
    const carol = await h.store.users.update({ ...(await stored(h, 'carol')), scmUid: '' });
    h.github.renameUser('carol', 'caroline');
    h.github.addUser({ login: 'carol' });
    const taken = await refusedLogin(h, 'carol');
    expect(taken.status).toBe(403);
    expect(taken.page).toContain('belongs to another person');
    // The refusal learned whose the old account is: her next login finds it under her new name.
    await loginAs(h, 'caroline');
    expect(await stored(h, 'caroline')).toMatchObject({ id: carol.id, tokenHash: carol.tokenHash });
    await loginAs(h, 'carol');
    expect((await stored(h, 'carol')).id).not.toBe(carol.id);

    const created = await call(h, '/api/users', {
      method: 'POST',
      token: rootToken,
      body: { login: 'dave' },
    });
    expect(created.status).toBe(200);
    h.github.addUser({ login: 'dave' });
    await loginAs(h, 'dave');
    const dave = await stored(h, 'dave');
    expect(dave.id).toBe((created.json as { id: number }).id);
    expect(dave.scmUid).toMatch(/^\d+$/);
  });
});

describe('repositories and organization secrets follow provider ids', () => {
  let h: Harness;
  let session: BrowserSession;
  let token: string;
  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat', orgAdmin: ['acme'] });
    session = await loginAs(h, 'octocat');
    token = await tokenOf(h, session);
  });
  afterAll(() => h.close());

  const sync = async () => {
    const answer = await call(h, '/api/user/repos', { method: 'POST', session, csrf: session.csrf });
    expect(answer.status).toBe(200);
  };

  it('never gives a repository deleted and created again the old one’s record', async () => {
    h.github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
    await enable(h, session, 'octocat/app');
    const old = await h.store.repos.update({ ...(await repoOf(h, 'octocat', 'app')), trusted: true });
    const secret = await call(h, '/api/repos/octocat/app/secrets', {
      method: 'POST',
      token,
      body: { name: 'deploy_key', data: 'old-repository-secret' },
    });
    expect(secret.status).toBe(200);
    const oldHookSecret = old.hookSecret;

    h.github.deleteRepo('octocat/app');
    h.github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
    h.github.commit('octocat/app', 'main', { '.drone.yml': 'kind: pipeline\nsteps: []\n' });
    // A push for the new repository, signed with the old record's secret: not the old record's.
    const status = await h.github.push('octocat/app', 'main', `${h.url}/hook`, { secret: oldHookSecret });
    expect(status).toBe(401);
    expect(await h.store.builds.findNumber(old.id, 1)).toBeUndefined();

    await sync();
    const fresh = await repoOf(h, 'octocat', 'app');
    expect(fresh.id).not.toBe(old.id);
    expect(fresh).toMatchObject({ active: false, trusted: false });
    expect(await h.store.secrets.list({ kind: 'repo', repoId: fresh.id })).toEqual([]);
    const aside = await repoOf(h, 'octocat', `app~stale-${old.id}`);
    expect(aside).toMatchObject({ id: old.id, uid: old.uid, trusted: true, hookSecret: oldHookSecret });
    expect((await h.store.secrets.list({ kind: 'repo', repoId: old.id })).map((s) => s.name)).toEqual([
      'deploy_key',
    ]);
  });

  it('gives organization secrets only to repositories of the organization they were added for', async () => {
    h.github.addRepo({ owner: 'acme', name: 'api', admins: ['octocat'] });
    await sync();
    const added = await call(h, '/api/secrets/acme', {
      method: 'POST',
      token,
      body: { name: 'registry_password', data: 'acme-secret' },
    });
    expect(added.status).toBe(200);
    const api = await repoOf(h, 'acme', 'api');
    expect(api.namespaceUid).toMatch(/^\d+$/);
    expect((await secretsForBuild(h.store.secrets, api, pushOf(api))).map((s) => s.name)).toContain(
      'registry_password',
    );

    // The organization is deleted, and someone registers its name again with a repository.
    h.github.deleteRepo('acme/api');
    h.github.recreateOrg('acme');
    h.github.addRepo({ owner: 'acme', name: 'web', admins: ['octocat'] });
    await sync();
    const web = await repoOf(h, 'acme', 'web');
    expect(web.namespaceUid).not.toBe(api.namespaceUid);
    expect((await secretsForBuild(h.store.secrets, web, pushOf(web))).map((s) => s.name)).toEqual([]);
  });

  it('binds an organization secret written before svc stored ids to the first repository that uses it', async () => {
    const legacy = await h.store.secrets.create({
      scope: { kind: 'namespace', namespace: 'acme' },
      name: 'legacy_token',
      data: 'legacy',
      pullRequest: false,
      pullRequestPush: false,
      namespaceUid: '',
      environment: '',
    });
    const web = await repoOf(h, 'acme', 'web');
    expect((await secretsForBuild(h.store.secrets, web, pushOf(web))).map((s) => s.name)).toEqual([
      'legacy_token',
    ]);
    expect((await h.store.secrets.find(legacy.id))?.namespaceUid).toBe(web.namespaceUid);
    const other = { ...web, namespaceUid: 'another-namespace' };
    expect(await secretsForBuild(h.store.secrets, other, pushOf(other))).toEqual([]);
  });
});
