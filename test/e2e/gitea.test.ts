/*
 * Gitea end to end: `svc server` (SVC_SCMB_*) and `svc runner docker` as real processes, the Gitea
 * double, a real git server for the clone step. A user logs in through Gitea's OAuth2 pages, enables
 * a repository (a hook with a secret), a forged delivery changes nothing, a signed push builds green
 * with its statuses at Gitea, a tag (Gitea's push and create) builds once, and a pull request from a
 * fork waits for approval.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { enable, tokenOf } from '../api/client.js';
import { startGiteaDouble, type GiteaDouble } from '../doubles/gitea/index.js';
import { ProviderE2E } from './provider-e2e.js';
import { forgedThenPushToGreen, heldForApproval } from './provider-scenarios.js';
import { E2E_PIPELINE } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const REPO = 'acme/demo';

describe.skipIf(docker.skip)('Gitea: OAuth login, enable, push, tag and fork pull request end to end', () => {
  let gitea: GiteaDouble;
  let e2e: ProviderE2E;
  let hookUrl = '';

  beforeAll(async () => {
    gitea = await startGiteaDouble();
    gitea.addUser({ login: 'alice', email: 'alice@example.com', orgAdmin: ['acme'] });
    gitea.addUser({ login: 'bob' });
    e2e = await ProviderE2E.start(
      {
        forge: gitea,
        repo: REPO,
        branch: 'main',
        author: 'alice',
        runnerName: `e2e-gitea-runner-${process.pid}`,
        addRepos: (cloneUrl) => {
          gitea.addRepo({ owner: 'acme', name: 'demo', admins: ['alice'], cloneUrl });
          gitea.addRepo({ owner: 'bob', name: 'demo' });
        },
        settings: {
          SVC_SCMB_SERVER: gitea.url,
          SVC_SCMB_CLIENT_ID: gitea.clientId,
          SVC_SCMB_CLIENT_SECRET: gitea.clientSecret,
        },
      },
      docker.docker!,
    );
    e2e.push({ 'README.md': 'hello from Gitea\n', '.drone.yml': E2E_PIPELINE }, 'initial commit');
  });

  afterAll(() => e2e?.stop());

  it('logs in through Gitea’s OAuth2 pages and enables a repository with a signed hook', async () => {
    const { session, authorize } = await e2e.oauthLogin('alice');
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${gitea.url}/login/oauth/authorize`);
    e2e.token = await tokenOf({ url: e2e.url() }, session);
    await enable({ url: e2e.url() }, session, REPO);
    const [hook] = gitea.hooks(REPO);
    expect(hook).toMatchObject({ url: e2e.url('/hook'), active: true });
    expect(hook?.events.sort()).toEqual(['create', 'delete', 'pull_request', 'push']);
    expect(hook?.secret.length).toBeGreaterThanOrEqual(32);
    hookUrl = hook?.url ?? '';
  });

  it('refuses a forged delivery, then builds a signed push to green and reports it to Gitea', async () => {
    await forgedThenPushToGreen(
      e2e,
      {
        sendPush: (secret) => gitea.push(REPO, 'main', hookUrl, secret === undefined ? {} : { secret }),
        statuses: (sha) => gitea.statuses(REPO, sha).map((s) => ({ ...s, url: s.target_url })),
      },
      { message: 'a signed push', states: ['pending', 'pending', 'success'] },
    );
  });

  it('builds a tag once from the push and create Gitea sends for it', async () => {
    e2e.git.tag(REPO, 'main', 'v1.0.0');
    const sha = gitea.tag(REPO, 'v1.0.0');
    expect(await gitea.pushTag(REPO, 'v1.0.0', hookUrl)).toEqual([200, 200]);
    expect(await e2e.build(2)).toMatchObject({
      status: 'success',
      event: 'tag',
      ref: 'refs/tags/v1.0.0',
      after: sha,
    });
    expect((await e2e.builds()).map((b) => b.number)).toEqual([2, 1]);
  });

  it('holds a pull request from a fork for approval', async () => {
    const fork = gitea.commit(
      'bob/demo',
      'feature',
      { 'README.md': 'from a fork\n', '.drone.yml': E2E_PIPELINE },
      'fork work',
      'bob',
    );
    const opened = await gitea.pullRequest(REPO, 'feature', hookUrl, { fork: 'bob/demo' });
    await heldForApproval(e2e, opened.status, { ref: `refs/pull/${opened.number}/head`, after: fork });
    expect(gitea.unknownCalls()).toEqual([]);
  });
});
