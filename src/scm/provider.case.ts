import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScmProvider, ScmRepoRef, ScmStatus, ScmToken } from '../core/scm.js';
import {
  expectCode,
  rejection,
  startReceiver,
  type ScmDoubleDriver,
  type ScmTestDouble,
} from './provider-harness.case.js';

export type { ScmDoubleDriver, ScmTestDouble } from './provider-harness.case.js';

/**
 * The ScmProvider contract (src/core/scm.ts), run against a provider and its double: OAuth login,
 * account, complete repository lists with permissions, files, branches, hooks, statuses, clone
 * credentials, webhooks and the error contract.
 */
export function providerContract(driver: ScmDoubleDriver): void {
  describe(`ScmProvider contract: ${driver.name}`, () => {
    let double: ScmTestDouble;
    let scm: ScmProvider;
    let alice: ScmToken;
    let bob: ScmToken;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    const demo: ScmRepoRef = { namespace: 'alice', name: 'demo' };
    const secretRepo: ScmRepoRef = { namespace: 'alice', name: 'hidden' };
    let firstSha: string;
    let headSha: string;

    beforeAll(async () => {
      double = await driver.start();
      receiver = await startReceiver();
      alice = double.addUser('alice', 'alice@example.com');
      bob = double.addUser('bob', 'bob@example.com');
      double.addRepo({ owner: 'alice', name: 'demo', writers: ['bob'] });
      double.addRepo({ owner: 'alice', name: 'hidden', private: true });
      firstSha = double.commit(
        'alice/demo',
        'main',
        { '.drone.yml': 'kind: pipeline\n', 'src/a.txt': 'a' },
        'first',
      );
      headSha = double.commit('alice/demo', 'main', { '.drone.yml': 'kind: pipeline\nname: two\n' });
      scm = double.provider();
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
      await double.close();
    });

    describe('login', () => {
      it('logs a user in and gives a token for their account', async () => {
        const login = scm.login;
        if (login.kind === 'password') {
          const token = await login.login('alice', double.password?.('alice') ?? '');
          expect(token.token).not.toBe('');
          expect((await scm.currentUser(token)).login).toBe('alice');
          // Logging in again works too (the provider's token is reused or replaced, never refused).
          const again = await login.login('alice', double.password?.('alice') ?? '');
          expect((await scm.currentUser(again)).login).toBe('alice');
          return;
        }
        const redirectUri = 'https://ci.example.com/login';
        if (double.authorize === undefined) throw new Error('the double cannot play the authorize page');
        if (login.kind === 'oauth1') {
          const started = await login.start(`${redirectUri}?state=state-123`);
          const back = await double.authorize(started.authorizeUrl, 'alice');
          expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
          expect(back.searchParams.get('state')).toBe('state-123');
          expect(back.searchParams.get('oauth_token')).toBe(started.requestToken);
          const verifier = back.searchParams.get('oauth_verifier') ?? '';
          const token = await login.exchange(started.requestToken, verifier);
          expect((await scm.currentUser(token)).login).toBe('alice');
          // Request tokens are single-use.
          await expectCode(login.exchange(started.requestToken, verifier), 'UNAUTHORIZED');
          return;
        }
        const target = await double.authorize(login.authorizeUrl('state-123', redirectUri), 'alice');
        expect(`${target.origin}${target.pathname}`).toBe(redirectUri);
        expect(target.searchParams.get('state')).toBe('state-123');
        const code = target.searchParams.get('code') ?? '';
        const token = await login.exchangeCode(code, redirectUri);
        expect(token.token).not.toBe('');
        expect((await scm.currentUser(token)).login).toBe('alice');
        // Codes are single-use.
        await expectCode(login.exchangeCode(code, redirectUri), 'UNAUTHORIZED');
      });

      it('refuses an unknown code or a wrong password', async () => {
        const login = scm.login;
        if (login.kind === 'password') {
          await expectCode(login.login('alice', 'not-her-password'), 'UNAUTHORIZED');
          await expectCode(login.login('nobody', 'secret'), 'UNAUTHORIZED');
          return;
        }
        if (login.kind === 'oauth1') {
          await expectCode(login.exchange('not-a-request-token', 'not-a-verifier'), 'UNAUTHORIZED');
          return;
        }
        await expectCode(login.exchangeCode('not-a-code', 'https://ci.example.com/login'), 'UNAUTHORIZED');
      });
    });

    describe('account', () => {
      it('describes the current user with their email', async () => {
        const account = await scm.currentUser(alice);
        expect(account).toMatchObject({ login: 'alice', email: 'alice@example.com' });
        expect(account.avatar).toMatch(/^https?:\/\//);
        // The immutable id that accounts are matched by (names can be renamed and reused).
        expect(account.uid).not.toBe('');
        expect((await scm.currentUser(alice)).uid).toBe(account.uid);
        expect((await scm.currentUser(bob)).uid).not.toBe(account.uid);
      });

      it('rejects a bad token with UNAUTHORIZED', async () => {
        await expectCode(scm.currentUser({ token: 'nope', refresh: '', expiry: 0 }), 'UNAUTHORIZED');
      });

      it('lists the organizations of the current user, across pages', async () => {
        if (driver.gaps?.organizations !== undefined) {
          // No organizations: none listed; an account is a member and administrator of its own namespace only.
          expect(await scm.organizations(alice)).toEqual([]);
          expect(await scm.membership(alice, 'alice')).toEqual({ member: true, admin: true });
          expect(await scm.membership(alice, 'ALICE')).toEqual({ member: true, admin: true });
          expect(await scm.membership(bob, 'alice')).toEqual({ member: false, admin: false });
          await expectCode(scm.organizations({ token: 'nope', refresh: '', expiry: 0 }), 'UNAUTHORIZED');
          return;
        }
        const orgs = Array.from({ length: 45 }, (_, i) => `org-${String(i).padStart(2, '0')}`);
        const member = double.addUser('member', 'member@example.com', ['Octo-Org', ...orgs]);
        expect(await scm.organizations(member)).toEqual(['Octo-Org', ...orgs]);
        expect(await scm.organizations(bob)).toEqual([]);
        await expectCode(scm.organizations({ token: 'nope', refresh: '', expiry: 0 }), 'UNAUTHORIZED');
      });

      it('says whether the current user is a member or an administrator of an organization', async () => {
        await expectCode(scm.membership({ token: 'nope', refresh: '', expiry: 0 }, 'Tower'), 'UNAUTHORIZED');
        if (driver.gaps?.organizations !== undefined) {
          // Every namespace is an account's (the test above); no such namespace is an answer too.
          expect(await scm.membership(bob, 'no-such-namespace')).toEqual({ member: false, admin: false });
          return;
        }
        const owner = double.addUser('org-owner', 'org-owner@example.com', ['Guild'], ['Tower']);
        // Without an API for the role, a member is never taken for an administrator.
        const admin = driver.gaps?.orgAdmin === undefined;
        expect(await scm.membership(owner, 'Tower')).toEqual({ member: true, admin });
        expect(await scm.membership(owner, 'tower')).toEqual({ member: true, admin });
        expect(await scm.membership(owner, 'Guild')).toEqual({ member: true, admin: false });
        // Not a member, and no such organization, are answers rather than errors.
        expect(await scm.membership(bob, 'Tower')).toEqual({ member: false, admin: false });
        expect(await scm.membership(owner, 'no-such-org')).toEqual({ member: false, admin: false });
      });
    });

    describe('repositories', () => {
      it('lists every repository across pages, with permissions', async () => {
        const carol = double.addUser('carol', 'carol@example.com');
        for (let i = 0; i < 250; i++)
          double.addRepo({ owner: 'carol', name: `repo-${String(i).padStart(3, '0')}` });
        double.addRepo({ owner: 'acme', name: 'shared', admins: ['carol'] });
        double.addRepo({ owner: 'acme', name: 'readable', private: true, readers: ['carol'] });
        const repos = await scm.listRepos(carol);
        expect(repos).toHaveLength(252);
        expect(new Set(repos.map((r) => r.uid)).size).toBe(252);
        expect(repos.find((r) => r.name === 'repo-249')?.perm).toEqual({
          read: true,
          write: true,
          admin: true,
        });
        expect(repos.find((r) => r.name === 'shared')?.perm).toEqual({
          read: true,
          write: true,
          admin: true,
        });
        expect(repos.find((r) => r.name === 'readable')).toMatchObject({
          namespace: 'acme',
          private: true,
          visibility: 'private',
          perm: { read: true, write: false, admin: false },
        });
        // The namespace's id (organization secrets are bound to it): one per namespace.
        const namespaceUids = (name: string) =>
          new Set(repos.filter((r) => r.namespace === name).map((r) => r.namespaceUid));
        const [acme] = [...namespaceUids('acme')];
        const [own] = [...namespaceUids('carol')];
        expect([namespaceUids('acme').size, namespaceUids('carol').size]).toEqual([1, 1]);
        expect(acme).not.toBe('');
        expect(own).not.toBe('');
        expect(acme).not.toBe(own);
      });

      it('finds one repository as the asking user sees it', async () => {
        const asAlice = await scm.findRepo(alice, demo);
        expect(asAlice).toMatchObject({
          namespace: 'alice',
          name: 'demo',
          defaultBranch: 'main',
          private: false,
          visibility: 'public',
          perm: { read: true, write: true, admin: true },
        });
        expect(asAlice.uid).not.toBe('');
        expect(asAlice.cloneUrl).toMatch(/^https?:\/\/.*demo/);
        expect(asAlice.link).toMatch(/^https?:\/\//);
        expect((await scm.findRepo(bob, demo)).perm).toEqual({ read: true, write: true, admin: false });
      });

      it('answers NOT_FOUND for a missing repository and a private one the user cannot see', async () => {
        await expectCode(scm.findRepo(alice, { namespace: 'alice', name: 'missing' }), 'NOT_FOUND');
        await expectCode(scm.findRepo(bob, secretRepo), 'NOT_FOUND');
      });
    });

    describe('files and branches', () => {
      it('reads a file at a commit', async () => {
        expect(await scm.fileContents(alice, demo, '.drone.yml', firstSha)).toBe('kind: pipeline\n');
        expect(await scm.fileContents(alice, demo, '.drone.yml', headSha)).toBe(
          'kind: pipeline\nname: two\n',
        );
        expect(await scm.fileContents(alice, demo, 'src/a.txt', headSha)).toBe('a');
      });

      it('answers undefined for a missing file, NOT_FOUND for a missing repository', async () => {
        expect(await scm.fileContents(alice, demo, '.svc.yml', headSha)).toBeUndefined();
        await expectCode(
          scm.fileContents(alice, { namespace: 'alice', name: 'missing' }, '.drone.yml', headSha),
          'NOT_FOUND',
        );
      });

      it('gives the commit a branch points at', async () => {
        expect(await scm.branchHead(alice, demo, 'main')).toBe(headSha);
        await expectCode(scm.branchHead(alice, demo, 'no-such-branch'), 'NOT_FOUND');
      });

      it('describes the head commit of a branch and a commit by sha, with its author', async () => {
        const login = driver.gaps?.commitAccount === undefined ? 'alice' : '';
        const head = await scm.findCommit(alice, demo, { branch: 'main' });
        expect(head).toMatchObject({ sha: headSha, authorLogin: login, authorEmail: 'alice@example.com' });
        expect(head.link).toContain(headSha);
        expect(head.authorAvatar).not.toBe('');
        const first = await scm.findCommit(alice, demo, { sha: firstSha });
        expect(first).toMatchObject({ sha: firstSha, message: 'first', authorLogin: login });
      });

      it('lists the files a push changed, or says why it cannot', async () => {
        if (scm.changedFiles === undefined) {
          expect(driver.gaps?.changedFiles).toBeDefined();
          return;
        }
        const change = { kind: 'push' as const, before: firstSha, after: headSha };
        const created = await scm.changedFiles(alice, demo, { ...change, before: '0'.repeat(40) });
        expect(created.known).toBe(false);
        if (driver.gaps?.changedFiles !== undefined) {
          // No API lists them: every change is answered with the reason.
          expect(await scm.changedFiles(alice, demo, change)).toEqual({
            known: false,
            reason: expect.stringMatching(/\S/) as unknown,
          });
          return;
        }
        expect(await scm.changedFiles(alice, demo, change)).toEqual({ known: true, files: ['.drone.yml'] });
      });

      it('finds the head of a branch whose name has a slash', async () => {
        const sha = double.commit('alice/demo', 'feature/x', { 'b.txt': 'b' });
        expect((await scm.findCommit(alice, demo, { branch: 'feature/x' })).sha).toBe(sha);
      });

      it('answers NOT_FOUND for a missing branch, commit or repository', async () => {
        await expectCode(scm.findCommit(alice, demo, { branch: 'no-such-branch' }), 'NOT_FOUND');
        await expectCode(scm.findCommit(alice, demo, { sha: 'f'.repeat(40) }), 'NOT_FOUND');
        await expectCode(scm.findCommit(bob, secretRepo, { branch: 'main' }), 'NOT_FOUND');
      });
    });

    describe('webhooks', () => {
      const url = 'https://ci.example.com/hook';

      it('creates one hook, updates it when created again, and deletes it', async () => {
        await scm.createHook(alice, demo, { url, secret: 's1' });
        expect(double.hooks('alice/demo')).toEqual([expect.objectContaining({ url, secret: 's1' })]);
        await scm.createHook(alice, demo, { url, secret: 's2' });
        expect(double.hooks('alice/demo')).toEqual([expect.objectContaining({ url, secret: 's2' })]);
        await scm.deleteHook(alice, demo, url);
        expect(double.hooks('alice/demo')).toEqual([]);
        await scm.deleteHook(alice, demo, url);
        expect(double.hooks('alice/demo')).toEqual([]);
      });

      it('refuses hooks to a user without admin rights', async () => {
        await expectCode(scm.createHook(bob, demo, { url, secret: 's' }), 'FORBIDDEN');
      });

      it('reads the push webhook it receives, verified with the repository secret', async () => {
        await scm.createHook(alice, demo, { url: receiver.url, secret: 'hook-secret' });
        expect(await double.sendPush('alice/demo', 'main', receiver.url)).toBe(204);
        const request = receiver.requests.at(-1);
        if (request === undefined) throw new Error('no webhook arrived');
        const asked: string[] = [];
        const result = await scm.parseHook(request, (repo) => {
          asked.push(`${repo.namespace}/${repo.name}`);
          return Promise.resolve('hook-secret');
        });
        expect(asked).toEqual(['alice/demo']);
        expect(result).toMatchObject({
          kind: 'build',
          repo: { namespace: 'alice', name: 'demo' },
          build: { event: 'push', ref: 'refs/heads/main', after: headSha, source: 'main', target: 'main' },
        });
        const uid = (await scm.findRepo(alice, demo)).uid;
        expect(result.kind === 'build' ? result.repo.uid : '').toBe(uid);
      });

      it('names each delivery by the id the provider sent in its delivery header', async () => {
        await scm.createHook(alice, demo, { url: receiver.url, secret: 'hook-secret' });
        const ids: string[] = [];
        for (let i = 0; i < 2; i++) {
          await double.sendPush('alice/demo', 'main', receiver.url);
          const request = receiver.requests.at(-1);
          if (request === undefined) throw new Error('no webhook arrived');
          const result = await scm.parseHook(request, () => Promise.resolve('hook-secret'));
          const delivery = result.kind === 'build' ? result.delivery : '';
          // One of the request's own header values (each provider names its own header: docs/webhooks.md).
          expect(Object.values(request.headers)).toContain(delivery);
          ids.push(delivery);
        }
        expect(ids[0]).not.toBe('');
        expect(ids[0]).not.toBe(ids[1]);
      });

      it('rejects a webhook signed with another secret, or for an unknown repository', async () => {
        await scm.createHook(alice, demo, { url: receiver.url, secret: 'hook-secret' });
        await double.sendPush('alice/demo', 'main', receiver.url);
        const genuine = receiver.requests.at(-1);
        await double.sendPush('alice/demo', 'main', receiver.url, 'wrong-secret');
        const forged = receiver.requests.at(-1);
        if (genuine === undefined || forged === undefined) throw new Error('no webhook arrived');
        await expectCode(
          scm.parseHook(forged, () => Promise.resolve('hook-secret')),
          'UNAUTHORIZED',
        );
        await expectCode(
          scm.parseHook(genuine, () => Promise.resolve(undefined)),
          'UNAUTHORIZED',
        );
      });
    });

    describe('statuses', () => {
      it('posts statuses in order, in the provider’s states (or, without a status API, nothing)', async () => {
        const states: ScmStatus['state'][] = ['pending', 'running', 'success', 'failure', 'error'];
        for (const state of states) {
          await scm.setStatus(alice, demo, headSha, {
            state,
            context: 'continuous-integration/svc',
            description: `build is ${state}`,
            targetUrl: 'https://ci.example.com/alice/demo/1',
            ref: 'refs/heads/main',
          });
        }
        if (!scm.reportsStatus) {
          expect(double.statuses('alice/demo', headSha)).toEqual([]);
          return;
        }
        expect(double.statuses('alice/demo', headSha)).toEqual(
          states.map((state) => ({
            state: double.expectedState(state),
            context: 'continuous-integration/svc',
            description: `build is ${state}`,
            targetUrl: 'https://ci.example.com/alice/demo/1',
          })),
        );
      });
    });

    describe('clone credentials', () => {
      const privateRepo = () => ({
        private: true,
        cloneUrl: `http://${double.cloneHost}:1234/alice/hidden.git`,
      });
      const publicRepo = () => ({
        private: false,
        cloneUrl: `http://${double.cloneHost}:1234/alice/demo.git`,
      });

      it('gives private repositories the user’s token, public ones nothing', () => {
        expect(scm.netrc(alice, privateRepo())).toEqual({
          machine: double.cloneHost,
          ...double.netrcLogin(alice),
        });
        expect(scm.netrc(alice, publicRepo())).toBeUndefined();
      });

      it('gives public repositories credentials too with SVC_GIT_ALWAYS_AUTH', () => {
        const always = double.provider({ gitAlwaysAuth: true });
        expect(always.netrc(alice, publicRepo())).toEqual({
          machine: double.cloneHost,
          ...double.netrcLogin(alice),
        });
      });

      it('uses SVC_GIT_USERNAME and SVC_GIT_PASSWORD instead of the token', () => {
        const fixed = double.provider({ gitUsername: 'robot', gitPassword: 'pw' });
        expect(fixed.netrc(alice, privateRepo())).toEqual({
          machine: double.cloneHost,
          login: 'robot',
          password: 'pw',
        });
        expect(fixed.netrc(alice, publicRepo())).toBeUndefined();
      });
    });

    describe('errors', () => {
      it.skipIf(driver.gaps?.rateLimit !== undefined)(
        'says when an exhausted rate limit resets',
        async () => {
          const resetAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3600_000);
          const limited = await driver.start();
          try {
            const token = limited.addUser('dave', 'dave@example.com');
            limited.exhaustRateLimit?.(resetAt);
            const error = await rejection(limited.provider().currentUser(token));
            expect(error.code).toBe('RATE_LIMITED');
            // Exact for providers that give the reset time; within the second `Retry-After` rounds
            // to for those that say how long to wait.
            const said = /resets at (\S+)$/.exec(error.message)?.[1] ?? '';
            expect(Math.abs(Date.parse(said) - resetAt.getTime())).toBeLessThanOrEqual(1000);
          } finally {
            await limited.close();
          }
        },
      );

      it.skipIf(driver.gaps?.network !== undefined)(
        'retries a read and a status post the provider failed on its side (the shared RestClient)',
        async () => {
          const hits = double.faultHits();
          double.fail({ method: 'GET', answer: 503, times: 1 });
          expect((await scm.findRepo(alice, demo)).name).toBe('demo');
          expect(double.faultHits()).toBe(hits + 1);
          if (!scm.reportsStatus) return;
          const posted = double.statuses('alice/demo', headSha).length;
          double.fail({ method: 'POST', answer: 502, times: 1 });
          await scm.setStatus(alice, demo, headSha, {
            state: 'success',
            context: 'continuous-integration/retried',
            description: 'posted through a 502',
            targetUrl: 'https://ci.example.com/alice/demo/2',
            ref: 'refs/heads/main',
          });
          expect(double.faultHits()).toBe(hits + 2);
          expect(double.statuses('alice/demo', headSha)).toHaveLength(posted + 1);
        },
      );

      it.skipIf(driver.gaps?.network !== undefined)(
        'reports an unreachable provider as INTERNAL, naming the call',
        async () => {
          const error = await expectCode(double.unreachableProvider().currentUser(alice), 'INTERNAL');
          // The provider's name and the call (`GitHub GET /user: …`, `Bitbucket Server GET /plugins/…`).
          expect(error.message).toMatch(/^[\w ]+ GET \/\S*: /);
        },
      );
    });
  });
}
