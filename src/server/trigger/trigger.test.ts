import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build, BuildStore } from '../../core/build.js';
import type { Repo } from '../../core/repo.js';
import type { Store } from '../../core/store.js';
import type { User } from '../../core/user.js';
import { newBuild } from '../../store/cases/fixtures.case.js';
import { type GitHubDouble } from '../../../test/doubles/github/index.js';
import { RemoteConvertPlugin, RemoteValidatePlugin } from '../../plugins/config-plugins.js';
import { PluginClient } from '../../plugins/plugin-client.js';
import { startTestPlugin, type TestPlugin } from '../../plugins/plugin-server.case.js';
import { pushHook, triggerFixture, type TriggerFixture } from './testing.case.js';
import { Trigger, type TriggerDeps } from './trigger.js';

const FILE = `kind: pipeline
name: default
steps:
- name: echo
  image: alpine
  commands:
  - echo build \${DRONE_BUILD_NUMBER}
`;

const hookFor = pushHook;

describe('Trigger', () => {
  let github: GitHubDouble;
  let store: Store;
  let owner: User;
  let repo: Repo;
  let deps: TriggerDeps;
  let fixture: TriggerFixture;
  const announced: Build[] = [];

  beforeAll(async () => {
    fixture = await triggerFixture({
      buildUpdated: ({ build }) => Promise.resolve(void announced.push(build)),
    });
    ({ github, store, owner, repo, deps } = fixture);
  });
  afterAll(() => fixture.close());

  it('substitutes again when another server took the build number in between', async () => {
    const sha = github.commit('octocat/app', 'main', { '.drone.yml': FILE });
    // Another replica creates a build between this one's reading of the counter and its own create.
    const racing: Pick<BuildStore, 'create'> = {
      async create(build, stages) {
        await store.builds.create(newBuild(repo.id), []);
        return store.builds.create(build, stages);
      },
    };
    const trigger = new Trigger({
      ...deps,
      store: { ...store, builds: { ...store.builds, ...racing, update: (b) => store.builds.update(b) } },
    });
    const result = await trigger.trigger(repo, hookFor(sha));
    if (result.kind !== 'created') throw new Error(`no build: ${result.reason}`);
    expect(result.build.number).toBe(2);
    expect(result.build.config).toContain('echo build 2');
    expect((await store.builds.findNumber(repo.id, 2))?.config).toContain('echo build 2');
  });

  it('records a bad ${…} expression as an error build with its line and column', async () => {
    const sha = github.commit('octocat/app', 'main', {
      '.drone.yml': FILE.replace('${DRONE_BUILD_NUMBER}', '${DRONE_BUILD_NUMBER'),
    });
    const result = await new Trigger(deps).trigger(repo, hookFor(sha));
    expect(result).toMatchObject({
      kind: 'created',
      build: {
        status: 'error',
        error: expect.stringMatching(/^\.drone\.yml: line 7, column 16: bad substitution/) as unknown,
      },
    });
  });

  it('records a provider refusal of the owner’s token as an error build', async () => {
    const sha = github.commit('octocat/app', 'main', { '.drone.yml': FILE });
    await store.users.update({ ...owner, scmToken: 'revoked' });
    try {
      const result = await new Trigger(deps).trigger(repo, hookFor(sha));
      if (result.kind !== 'created') throw new Error('no build');
      expect(result.build.status).toBe('error');
      expect(result.build.error).toMatch(/^cannot read the pipeline file with the credentials of octocat: /);
    } finally {
      await store.users.update(owner);
    }
  });

  it('records a provider that stays down through the retries as an error build saying so', async () => {
    const sha = github.commit('octocat/app', 'main', { '.drone.yml': FILE });
    github.fail({ method: 'GET', path: '/contents/', answer: 503 });
    try {
      const result = await new Trigger(deps).trigger(repo, hookFor(sha));
      if (result.kind !== 'created') throw new Error('no build');
      expect(result.build.status).toBe('error');
      expect(result.build.error).toMatch(
        /^cannot read the pipeline file: the git provider failed \(GitHub GET \S+\/contents\/\.svc\.yml: HTTP 503 .*\(after 3 attempts\)\); restart the build once it answers$/,
      );
    } finally {
      github.recover();
    }
  });

  it('makes no build for an inactive owner, and says why', async () => {
    const sha = github.commit('octocat/app', 'main', { '.drone.yml': FILE });
    const before = await store.builds.count();
    const result = await new Trigger(deps).trigger({ ...repo, userId: 0 }, hookFor(sha));
    expect(result).toEqual({
      kind: 'skipped',
      reason: 'the account that enabled the repository is gone or inactive; enable it again',
    });
    expect(await store.builds.count()).toBe(before);
  });

  it('reads the commit of an incomplete hook (Bitbucket Server pushes): message and author, and a [skip ci] in it', async () => {
    const sha = github.commit('octocat/app', 'main', { '.drone.yml': FILE }, 'from the commit');
    const incomplete = hookFor(sha, {
      message: '',
      authorLogin: '',
      authorName: '',
      authorEmail: '',
      incomplete: true,
    });
    const result = await new Trigger(deps).trigger(repo, incomplete);
    if (result.kind !== 'created') throw new Error(`no build: ${result.reason}`);
    expect(result.build).toMatchObject({
      after: sha,
      message: 'from the commit',
      authorLogin: 'octocat',
      authorEmail: expect.stringContaining('@') as unknown,
    });
    const skipped = github.commit('octocat/app', 'main', { 'a.txt': 'a' }, 'docs only [skip ci]');
    expect(await new Trigger(deps).trigger(repo, { ...incomplete, after: skipped })).toEqual({
      kind: 'skipped',
      reason: 'the commit message asks for no build ([skip ci])',
    });
  });

  it('tells the listener about every build it creates', async () => {
    const sha = github.commit('octocat/app', 'main', { '.drone.yml': FILE });
    const result = await new Trigger(deps).trigger(repo, hookFor(sha));
    if (result.kind !== 'created') throw new Error('no build');
    await expect.poll(() => announced.map((b) => b.id)).toContain(result.build.id);
  });

  describe('with conversion and validation plugins', () => {
    const SECRET = 'plugin-secret';
    const CONVERTED = FILE.replace('echo build', 'echo converted build');
    let plugin: TestPlugin;
    let verdict = { status: 204, body: '' };
    const withPlugins = (validatePath = '/validate') =>
      new Trigger({
        ...deps,
        convert: new RemoteConvertPlugin(
          new PluginClient('conversion', {
            endpoint: plugin.url('/convert'),
            secret: SECRET,
            skipVerify: false,
          }),
          undefined,
        ),
        validate: new RemoteValidatePlugin(
          new PluginClient('validation', {
            endpoint: plugin.url(validatePath),
            secret: SECRET,
            skipVerify: false,
          }),
        ),
      });

    beforeAll(async () => {
      plugin = await startTestPlugin(SECRET, (call) =>
        call.path === '/convert' ? { status: 200, body: JSON.stringify({ data: CONVERTED }) } : verdict,
      );
    });
    afterAll(() => plugin.close());

    it('builds the converted file, after the validation plugin saw the converted text', async () => {
      verdict = { status: 204, body: '' };
      const sha = github.commit('octocat/app', 'main', { '.drone.yml': FILE });
      const result = await withPlugins().trigger(repo, hookFor(sha));
      if (result.kind !== 'created') throw new Error(`no build: ${result.reason}`);
      expect(result.build.status).toBe('pending');
      expect(result.build.config).toContain('echo converted build');
      const [convert, validate] = plugin.calls.slice(-2);
      expect(convert?.body.config?.data).toBe(FILE);
      expect(validate?.body.config?.data).toBe(CONVERTED);
      expect(convert?.body.build?.after).toBe(sha);
      expect(plugin.calls.every((call) => call.verified)).toBe(true);
    });

    it('blocks the build on 499, skips it on 498, and records a refusal or a plugin that is down as an error build', async () => {
      const sha = github.commit('octocat/app', 'main', { '.drone.yml': FILE });
      verdict = { status: 499, body: 'needs approval' };
      const blocked = await withPlugins().trigger(repo, hookFor(sha));
      expect(blocked).toMatchObject({ kind: 'created', build: { status: 'blocked' } });

      verdict = { status: 498, body: '' };
      const before = await store.builds.count();
      expect(await withPlugins().trigger(repo, hookFor(sha))).toEqual({
        kind: 'skipped',
        reason: 'the validation plugin skips it',
      });
      expect(await store.builds.count()).toBe(before);

      verdict = { status: 422, body: 'privileged steps are not allowed' };
      expect(await withPlugins().trigger(repo, hookFor(sha))).toMatchObject({
        kind: 'created',
        build: {
          status: 'error',
          error: 'the validation plugin refused .drone.yml: privileged steps are not allowed',
        },
      });

      const down = new Trigger({
        ...deps,
        validate: new RemoteValidatePlugin(
          new PluginClient('validation', {
            endpoint: 'http://127.0.0.1:1/',
            secret: SECRET,
            skipVerify: false,
          }),
        ),
      });
      const result = await down.trigger(repo, hookFor(sha));
      if (result.kind !== 'created') throw new Error('no build');
      expect(result.build.status).toBe('error');
      expect(result.build.error).toMatch(
        /^the validation plugin at http:\/\/127\.0\.0\.1:1\/ did not answer: /,
      );
    });
  });
});
