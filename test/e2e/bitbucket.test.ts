/*
 * Bitbucket Cloud end to end: `svc server` (SVC_SCMA_*, both addresses on the double) and
 * `svc runner docker` as real processes, the Bitbucket double, a real git server for the clone step.
 * A user logs in through Bitbucket's OAuth pages, enables a repository (a hook signed with a secret),
 * a forged delivery changes nothing, a push builds green with its build statuses, a tag push builds,
 * and a pull request from a fork (with Bitbucket's short hash) waits for approval at the full commit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { enable, tokenOf } from '../api/client.js';
import { startBitbucketDouble, type BitbucketDouble } from '../doubles/bitbucket/index.js';
import { ProviderE2E } from './provider-e2e.js';
import { forgedThenPushToGreen, heldForApproval, tagToGreen } from './provider-scenarios.js';
import { E2E_PIPELINE } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const REPO = 'acme/demo';

describe.skipIf(docker.skip)(
  'Bitbucket Cloud: OAuth login, enable, push, tag and fork pull request end to end',
  () => {
    let bitbucket: BitbucketDouble;
    let e2e: ProviderE2E;
    let hookUrl = '';

    beforeAll(async () => {
      bitbucket = await startBitbucketDouble();
      bitbucket.addUser({ login: 'alice', email: 'alice@example.com', orgAdmin: ['acme'] });
      bitbucket.addUser({ login: 'bob' });
      e2e = await ProviderE2E.start(
        {
          forge: bitbucket,
          repo: REPO,
          branch: 'main',
          author: 'alice',
          runnerName: `e2e-bitbucket-runner-${process.pid}`,
          addRepos: (cloneUrl) => {
            bitbucket.addRepo({ owner: 'acme', name: 'demo', admins: ['alice'], cloneUrl });
            bitbucket.addRepo({ owner: 'bob', name: 'demo' });
          },
          settings: {
            SVC_SCMA_CLIENT_ID: bitbucket.key,
            SVC_SCMA_CLIENT_SECRET: bitbucket.secret,
            SVC_SCMA_SERVER: bitbucket.url,
            SVC_SCMA_API_SERVER: bitbucket.url,
            SVC_SCMA_DEBUG: 'true',
          },
        },
        docker.docker!,
      );
      e2e.push({ 'README.md': 'hello from Bitbucket\n', '.drone.yml': E2E_PIPELINE }, 'initial commit');
    });

    afterAll(() => e2e?.stop());

    it('logs in through Bitbucket’s OAuth pages, tracing it without secrets, and enables a repository with a signed hook', async () => {
      const { session, authorize } = await e2e.oauthLogin('alice');
      expect(`${authorize.origin}${authorize.pathname}`).toBe(`${bitbucket.url}/site/oauth2/authorize`);
      const log = e2e.server?.log() ?? '';
      expect(log).toContain(
        'SVC_SCMA_DEBUG: Bitbucket POST /site/oauth2/access_token grant_type=authorization_code',
      );
      expect(log).not.toContain(bitbucket.secret);
      e2e.token = await tokenOf({ url: e2e.url() }, session);
      await enable({ url: e2e.url() }, session, REPO);
      const [hook] = bitbucket.hooks(REPO);
      expect(hook).toMatchObject({ url: e2e.url('/hook') });
      expect(hook?.events.sort()).toEqual(['pullrequest:created', 'pullrequest:updated', 'repo:push']);
      expect(hook?.secret.length).toBeGreaterThanOrEqual(32);
      hookUrl = hook?.url ?? '';
    });

    it('refuses a forged delivery, then builds a push to green and reports it to Bitbucket', async () => {
      await forgedThenPushToGreen(
        e2e,
        {
          sendPush: (secret) => bitbucket.push(REPO, 'main', hookUrl, secret === undefined ? {} : { secret }),
          statuses: (sha) => bitbucket.statuses(REPO, sha).map((s) => ({ ...s, url: s.target_url })),
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

    it('holds a pull request from a fork for approval, at the full commit of its short hash', async () => {
      const fork = bitbucket.commit(
        'bob/demo',
        'feature',
        { 'README.md': 'from a fork\n', '.drone.yml': E2E_PIPELINE },
        'fork work',
        'bob',
      );
      const opened = await bitbucket.pullRequest(REPO, 'feature', hookUrl, { fork: 'bob/demo' });
      await heldForApproval(e2e, opened.status, { ref: 'refs/heads/feature', after: fork });
      expect(bitbucket.unknownCalls()).toEqual([]);
    });
  },
);
