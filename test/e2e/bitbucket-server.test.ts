/*
 * Bitbucket Server end to end: `svc server` (SVC_SCMF_*, the application link's key in a file) and
 * `svc runner docker` as real processes, the Bitbucket Server double (which verifies every OAuth 1.0a
 * signature with the link's public key), a real git server for the clone step. A user logs in
 * through the three OAuth legs (and one who denies access is told so), enables a repository (a
 * webhook with a secret), a forged delivery changes nothing, a signed push builds green with its
 * build statuses, a tag push builds, and a pull request from a fork waits for approval.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { cookieHeader, enable, tokenOf } from '../api/client.js';
import { startBitbucketServerDouble, type BitbucketServerDouble } from '../doubles/bitbucket-server/index.js';
import { ProviderE2E } from './provider-e2e.js';
import { forgedThenPushToGreen, heldForApproval, tagToGreen } from './provider-scenarios.js';
import { E2E_PIPELINE } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const REPO = 'ACME/demo';

describe.skipIf(docker.skip)(
  'Bitbucket Server: OAuth 1.0a login, enable, push, tag and fork pull request end to end',
  () => {
    let bitbucket: BitbucketServerDouble;
    let e2e: ProviderE2E;
    let hookUrl = '';

    beforeAll(async () => {
      bitbucket = await startBitbucketServerDouble();
      bitbucket.addUser({ login: 'alice', email: 'alice@example.com', orgAdmin: ['ACME'] });
      bitbucket.addUser({ login: 'bob' });
      const keyFile = join(mkdtempSync(join(tmpdir(), 'svc-e2e-scmf-')), 'svc-private.pem');
      writeFileSync(keyFile, bitbucket.privateKeyPem, { mode: 0o600 });
      e2e = await ProviderE2E.start(
        {
          forge: bitbucket,
          repo: REPO,
          branch: 'main',
          author: 'alice',
          runnerName: `e2e-bitbucket-server-runner-${process.pid}`,
          addRepos: (cloneUrl) => {
            bitbucket.addRepo({ owner: 'ACME', name: 'demo', private: true, admins: ['alice'], cloneUrl });
            bitbucket.addRepo({ owner: '~bob', name: 'demo', readers: ['alice'] });
          },
          settings: {
            SVC_SCMF_SERVER: bitbucket.url,
            SVC_SCMF_CONSUMER_KEY: bitbucket.consumerKey,
            SVC_SCMF_PRIVATE_KEY: keyFile,
            SVC_GIT_USERNAME: 'ci-bot',
            SVC_GIT_PASSWORD: 'a-personal-access-token',
          },
        },
        docker.docker!,
      );
      e2e.push(
        { 'README.md': 'hello from Bitbucket Server\n', '.drone.yml': E2E_PIPELINE },
        'initial commit',
      );
    });

    afterAll(() => e2e?.stop());

    it('tells a user who denies access at Bitbucket so', async () => {
      const start = await fetch(e2e.url('/login'), { redirect: 'manual' });
      expect(start.status).toBe(302);
      const back = await bitbucket.authorize(start.headers.get('location') ?? '', 'alice', { deny: true });
      const page = await fetch(back, {
        redirect: 'manual',
        headers: { cookie: cookieHeader(start.headers.getSetCookie()) },
      });
      expect(page.status).toBe(403);
      expect(await page.text()).toContain('access to your account was denied');
    });

    it('logs in through the three OAuth 1.0a legs and enables a repository with a signed webhook', async () => {
      const { session, authorize } = await e2e.oauthLogin('alice');
      expect(`${authorize.origin}${authorize.pathname}`).toBe(
        `${bitbucket.url}/plugins/servlet/oauth/authorize`,
      );
      e2e.token = await tokenOf({ url: e2e.url() }, session);
      await enable({ url: e2e.url() }, session, REPO);
      const [hook] = bitbucket.hooks(REPO);
      expect(hook).toMatchObject({ url: e2e.url('/hook') });
      expect(hook?.events.sort()).toEqual([
        'pr:from_ref_updated',
        'pr:modified',
        'pr:opened',
        'repo:refs_changed',
      ]);
      expect(hook?.secret.length).toBeGreaterThanOrEqual(32);
      hookUrl = hook?.url ?? '';
    });

    it('refuses a forged delivery, then builds a push to green, with its message read from Bitbucket, and reports it', async () => {
      // Bitbucket's push names the commit only: a build with its message shows svc read the commit.
      await forgedThenPushToGreen(
        e2e,
        {
          sendPush: (secret) => bitbucket.push(REPO, 'main', hookUrl, secret === undefined ? {} : { secret }),
          statuses: (sha) =>
            bitbucket.statuses(sha).map((s) => ({ state: s.state, context: s.key, url: s.url })),
        },
        { message: 'a push', states: ['INPROGRESS', 'INPROGRESS', 'SUCCESSFUL'] },
      );
    });

    it('builds a tag push', async () => {
      await tagToGreen(e2e, 'v1.0.0', {
        tagAt: (tag) => bitbucket.tag(REPO, tag),
        sendTag: (tag) => bitbucket.pushTag(REPO, tag, hookUrl),
      });
    });

    it('holds a pull request from a fork for approval', async () => {
      const fork = bitbucket.commit(
        '~bob/demo',
        'feature',
        { 'README.md': 'from a fork\n', '.drone.yml': E2E_PIPELINE },
        'fork work',
        'bob',
      );
      const opened = await bitbucket.pullRequest(REPO, 'feature', hookUrl, { fork: '~bob/demo' });
      await heldForApproval(e2e, opened.status, { ref: `refs/pull-requests/${opened.id}/from`, after: fork });
      expect(bitbucket.unknownCalls()).toEqual([]);
    });
  },
);
