import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../core/repo.js';
import type { ScmProvider, ScmToken } from '../../core/scm.js';
import type { Store } from '../../core/store.js';
import { newRepo, newUser } from '../../store/cases/fixtures.case.js';
import { openStore } from '../../store/index.js';
import { startGitHubDouble, type GitHubDouble } from '../../../test/doubles/github/index.js';
import { testDialects, type TestDatabase } from '../../../test/support/databases.js';
import { buildRequestOf, CRON_TRIGGER, type RequestFor } from './request.js';
import { Trigger } from './trigger.js';
import { githubProvider } from './testing.case.js';

const FILES = `kind: pipeline
name: nightly
trigger:
  cron: [nightly]
steps:
- name: echo
  image: alpine
  commands:
  - echo \${DRONE_CRON} $DEPLOY_ENV
---
kind: pipeline
name: on-push
trigger:
  event: [push]
steps:
- name: echo
  image: alpine
  commands: [echo push]
---
kind: pipeline
name: custom
trigger:
  event: [custom]
steps:
- name: echo
  image: alpine
  commands: [echo custom]
`;

/** Trigger.create with requests made from the provider's commits, as the cron scheduler and the API make them. */
describe('Trigger.create from a commit', () => {
  let github: GitHubDouble;
  let database: TestDatabase;
  let store: Store;
  let provider: ScmProvider;
  let token: ScmToken;
  let repo: Repo;
  let trigger: Trigger;

  beforeAll(async () => {
    github = await startGitHubDouble();
    const login = github.addUser({ login: 'octocat' });
    token = { token: login.token, refresh: '', expiry: 0 };
    const { id } = github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
    const [sqlite] = testDialects();
    if (sqlite === undefined) throw new Error('no SQLite');
    database = await sqlite.create();
    store = await openStore({ datasource: database.datasource });
    const owner = await store.users.create(
      newUser({ login: 'octocat', scmToken: login.token, scmRefresh: '', scmExpiry: 0 }),
    );
    repo = await store.repos.create(
      newRepo({ namespace: 'octocat', name: 'app', uid: String(id), userId: owner.id, active: true }),
    );
    provider = githubProvider(github);
    trigger = new Trigger({
      store,
      provider,
      queue: { wake: () => undefined },
      listener: { buildUpdated: () => Promise.resolve() },
      system: { proto: 'https', host: 'ci.example.com', version: 'test' },
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
    await github.close();
  });

  async function create(what: RequestFor) {
    const commit = await provider.findCommit(
      token,
      { namespace: 'octocat', name: 'app' },
      { branch: what.branch },
    );
    return trigger.create(repo, buildRequestOf(repo, commit, what));
  }

  it('builds a cron job from the branch head with only the pipelines its trigger selects', async () => {
    const sha = github.commit('octocat/app', 'main', { '.drone.yml': FILES }, 'nightly things [skip ci]');
    const result = await create({
      event: 'cron',
      branch: 'main',
      trigger: CRON_TRIGGER,
      sender: 'octocat',
      cron: 'nightly',
      params: { DEPLOY_ENV: 'staging' },
    });
    if (result.kind !== 'created') throw new Error(`no build: ${result.reason}`);
    expect(result.build).toMatchObject({
      status: 'pending',
      event: 'cron',
      cron: 'nightly',
      trigger: '@cron',
      after: sha,
      ref: 'refs/heads/main',
      target: 'main',
      message: 'nightly things [skip ci]',
      authorLogin: 'octocat',
      params: { DEPLOY_ENV: 'staging' },
    });
    expect(result.stages.map((s) => s.name)).toEqual(['nightly']);
    // DRONE_CRON is substituted like any build variable; params reach the steps as variables.
    expect(result.build.config).toContain('echo nightly $DEPLOY_ENV');
    expect((await store.builds.findNumber(repo.id, result.build.number))?.params).toEqual({
      DEPLOY_ENV: 'staging',
    });
  });

  it('builds a custom build for the user who asked, and skips a cron job no pipeline is for', async () => {
    github.commit('octocat/app', 'main', { '.drone.yml': FILES });
    const custom = await create({ event: 'custom', branch: 'main', trigger: 'octocat', sender: 'octocat' });
    expect(custom).toMatchObject({
      kind: 'created',
      build: { event: 'custom', trigger: 'octocat', sender: 'octocat', cron: '' },
    });
    if (custom.kind === 'created') expect(custom.stages.map((s) => s.name)).toEqual(['custom']);
    const before = await store.builds.count();
    const other = await create({
      event: 'cron',
      branch: 'main',
      trigger: CRON_TRIGGER,
      sender: 'octocat',
      cron: 'weekly',
    });
    expect(other).toEqual({
      kind: 'skipped',
      reason: "no pipeline's trigger matches this cron (branch main, ref refs/heads/main)",
    });
    expect(await store.builds.count()).toBe(before);
  });

  it('records a pipeline file that does not lint as an error build, and builds nothing for a disabled repository', async () => {
    const sha = github.commit('octocat/app', 'bare', { '.drone.yml': 'kind: pipeline\nsteps: 3\n' });
    const result = await create({ event: 'custom', branch: 'bare', trigger: 'octocat', sender: 'octocat' });
    expect(result).toMatchObject({
      kind: 'created',
      build: { status: 'error', error: expect.stringMatching(/^\.drone\.yml: /) as unknown },
    });
    const commit = await provider.findCommit(token, { namespace: 'octocat', name: 'app' }, { sha });
    const what = { event: 'custom', branch: 'bare', trigger: 'octocat', sender: 'octocat' } as const;
    expect(await trigger.create({ ...repo, active: false }, buildRequestOf(repo, commit, what))).toEqual({
      kind: 'skipped',
      reason: 'the repository is not enabled',
    });
  });
});
