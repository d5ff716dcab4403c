import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, enable, loginAs, type BrowserSession } from './client.js';
import { startHarness, type Harness } from './harness.js';

describe('repositories: change settings, disable', () => {
  let h: Harness;
  let owner: BrowserSession;
  let writer: BrowserSession;
  const patch = (session: BrowserSession, body: unknown) =>
    call(h, '/api/repos/octocat/app', { method: 'PATCH', session, csrf: session.csrf, body });

  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['octocat', 'writer']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'], writers: ['writer'] });
    [owner, writer] = [await loginAs(h, 'octocat'), await loginAs(h, 'writer')];
    await call(h, '/api/user/repos', { session: owner });
    await call(h, '/api/user/repos', { session: writer });
    await enable(h, owner, 'octocat/app');
  });
  afterAll(() => h.close());

  it('changes the settings a repository admin may change', async () => {
    const answer = await patch(owner, {
      config_path: '.ci/pipeline.yml',
      protected: true,
      ignore_forks: true,
      auto_cancel_pushes: true,
      visibility: 'internal',
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({
      config_path: '.ci/pipeline.yml',
      protected: true,
      ignore_forks: true,
      auto_cancel_pushes: true,
      visibility: 'internal',
    });
    expect(await h.store.repos.findSlug('octocat', 'app')).toMatchObject({
      configPath: '.ci/pipeline.yml',
      protected: true,
      ignoreForks: true,
      cancelPush: true,
      visibility: 'internal',
      active: true,
    });
  });

  it('keeps trusted and timeout for svc administrators, and refuses writers and unknown fields', async () => {
    const trusted = await patch(owner, { trusted: true });
    expect(trusted.status).toBe(403);
    expect(trusted.json).toEqual({
      code: 'FORBIDDEN',
      message: 'only svc administrators may change trusted',
    });
    expect((await patch(writer, { protected: false })).status).toBe(403);
    const unknown = await patch(owner, { hook_secret: 'mine' });
    expect(unknown.status).toBe(400);
    expect((unknown.json as { message: string }).message).toMatch(/hook_secret/);
    const badTimeout = await patch(owner, { config_path: 'x', timeout: 0 });
    expect(badTimeout.status).toBe(400);
    expect((badTimeout.json as { message: string }).message).toMatch(/^timeout: /);
    expect((await h.store.repos.findSlug('octocat', 'app'))?.configPath).toBe('.ci/pipeline.yml');
  });

  // A repository admin must not make svc read outside the repository: `..` reaches other provider
  // endpoints with the owner's token, and the Jsonnet program is written under svc's own folder.
  it('refuses a config_path that leaves the repository or is not a plain path, naming it', async () => {
    const refusals = {
      '../../../user': 'has a "." or ".." folder',
      'ci/../../x.yml': 'has a "." or ".." folder',
      './.drone.yml': 'has a "." or ".." folder',
      '/etc/passwd': 'starts with "/"',
      'ci//x.yml': 'has an empty folder name',
      'ci\\x.yml': 'contains "\\"',
      'a\u0007.yml': 'contains a control character',
      [`${'a/'.repeat(130)}x.yml`]: 'characters long; expected at most 255',
    };
    for (const [path, problem] of Object.entries(refusals)) {
      const answer = await patch(owner, { config_path: path });
      expect(answer.status, path).toBe(400);
      expect((answer.json as { message: string }).message, path).toContain(`config_path: "${path}" `);
      expect((answer.json as { message: string }).message, path).toContain(problem);
    }
    expect((await h.store.repos.findSlug('octocat', 'app'))?.configPath).toBe('.ci/pipeline.yml');
    expect((await patch(owner, { config_path: 'ci/.drone.jsonnet' })).status).toBe(200);
    expect((await patch(owner, { config_path: '' })).status).toBe(200);
    expect((await patch(owner, { config_path: '.ci/pipeline.yml' })).status).toBe(200);
  });

  it('disables a repository: no more builds, and the webhook at the provider is gone', async () => {
    expect(h.github.hooks('octocat/app')).toHaveLength(1);
    expect(
      (await call(h, '/api/repos/octocat/app', { method: 'DELETE', session: writer, csrf: writer.csrf }))
        .status,
    ).toBe(403);
    const answer = await call(h, '/api/repos/octocat/app', {
      method: 'DELETE',
      session: owner,
      csrf: owner.csrf,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ slug: 'octocat/app', active: false });
    expect(await h.store.repos.findSlug('octocat', 'app')).toMatchObject({ active: false, hookSecret: '' });
    expect(h.github.hooks('octocat/app')).toEqual([]);
  });
});
