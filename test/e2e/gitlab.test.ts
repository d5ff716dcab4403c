/*
 * GitLab end to end: `svc server` (SVC_SCMD_*) and `svc runner docker` as real processes, the GitLab
 * double, a real git server for the clone step. A user logs in through GitLab's OAuth2 pages, enables
 * a project (a hook with a secret token), a delivery with another token changes nothing, a push builds
 * green with its statuses at GitLab, a tag push builds, and a merge request from a fork waits for
 * approval.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { enable, tokenOf } from '../api/client.js';
import { startGitLabDouble, type GitLabDouble } from '../doubles/gitlab/index.js';
import { ProviderE2E } from './provider-e2e.js';
import { forgedThenPushToGreen, heldForApproval, tagToGreen } from './provider-scenarios.js';
import { E2E_PIPELINE } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const REPO = 'acme/demo';

describe.skipIf(docker.skip)(
  'GitLab: OAuth login, enable, push, tag and fork merge request end to end',
  () => {
    let gitlab: GitLabDouble;
    let e2e: ProviderE2E;
    let hookUrl = '';

    beforeAll(async () => {
      gitlab = await startGitLabDouble();
      gitlab.addUser({ login: 'alice', email: 'alice@example.com', orgAdmin: ['acme'] });
      gitlab.addUser({ login: 'bob' });
      e2e = await ProviderE2E.start(
        {
          forge: gitlab,
          repo: REPO,
          branch: 'main',
          author: 'alice',
          runnerName: `e2e-gitlab-runner-${process.pid}`,
          addRepos: (cloneUrl) => {
            gitlab.addRepo({ owner: 'acme', name: 'demo', admins: ['alice'], cloneUrl });
            gitlab.addRepo({ owner: 'bob', name: 'demo' });
          },
          settings: {
            SVC_SCMD_SERVER: gitlab.url,
            SVC_SCMD_CLIENT_ID: gitlab.clientId,
            SVC_SCMD_CLIENT_SECRET: gitlab.clientSecret,
          },
        },
        docker.docker!,
      );
      e2e.push({ 'README.md': 'hello from GitLab\n', '.drone.yml': E2E_PIPELINE }, 'initial commit');
    });

    afterAll(() => e2e?.stop());

    it('logs in through GitLab’s OAuth2 pages and enables a project with a hook and its secret token', async () => {
      const { session, authorize } = await e2e.oauthLogin('alice');
      expect(`${authorize.origin}${authorize.pathname}`).toBe(`${gitlab.url}/oauth/authorize`);
      expect(authorize.searchParams.get('scope')).toBe('api');
      e2e.token = await tokenOf({ url: e2e.url() }, session);
      await enable({ url: e2e.url() }, session, REPO);
      const [hook] = gitlab.hooks(REPO);
      expect(hook).toMatchObject({ url: e2e.url('/hook') });
      expect(hook?.events.sort()).toEqual(['merge_requests', 'push', 'tag_push']);
      expect(hook?.secret.length).toBeGreaterThanOrEqual(32);
      hookUrl = hook?.url ?? '';
    });

    it('refuses a delivery with another token, then builds a push to green and reports it to GitLab', async () => {
      await forgedThenPushToGreen(
        e2e,
        {
          sendPush: (secret) => gitlab.push(REPO, 'main', hookUrl, secret === undefined ? {} : { secret }),
          statuses: (sha) => gitlab.statuses(REPO, sha).map((s) => ({ ...s, url: s.target_url })),
        },
        { message: 'a push', states: ['pending', 'running', 'success'] },
      );
    });

    it('builds a tag push', async () => {
      await tagToGreen(e2e, 'v1.0.0', {
        tagAt: (tag) => gitlab.tag(REPO, tag),
        sendTag: (tag) => gitlab.pushTag(REPO, tag, hookUrl),
      });
    });

    it('holds a merge request from a fork for approval', async () => {
      const fork = gitlab.commit(
        'bob/demo',
        'feature',
        { 'README.md': 'from a fork\n', '.drone.yml': E2E_PIPELINE },
        'fork work',
        'bob',
      );
      const opened = await gitlab.mergeRequest(REPO, 'feature', hookUrl, { fork: 'bob/demo' });
      await heldForApproval(e2e, opened.status, {
        ref: `refs/merge-requests/${opened.iid}/head`,
        after: fork,
      });
      expect(gitlab.unknownCalls()).toEqual([]);
    });
  },
);
