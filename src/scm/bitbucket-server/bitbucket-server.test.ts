import { createPrivateKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startBitbucketServerDouble,
  type BitbucketServerDouble,
} from '../../../test/doubles/bitbucket-server/index.js';
import type { ScmOAuth1Login, ScmProvider, ScmToken } from '../../core/scm.js';
import type { GitAuthOptions } from '../netrc.js';
import { providerContract, type ScmDoubleDriver } from '../provider.case.js';
import { expectCode, forgeDoubleParts, startReceiver, token } from '../provider-harness.case.js';
import { toBitbucketServerState } from './convert.js';
import { createBitbucketServerProvider, type BitbucketServerOptions } from './index.js';

function optionsFor(
  double: BitbucketServerDouble,
  git: Partial<GitAuthOptions> = {},
): BitbucketServerOptions {
  return {
    server: double.url,
    consumerKey: double.consumerKey,
    privateKey: createPrivateKey(double.privateKeyPem),
    skipVerify: false,
    gitAlwaysAuth: git.gitAlwaysAuth ?? false,
    gitUsername: git.gitUsername ?? null,
    gitPassword: git.gitPassword ?? null,
  };
}

function oauth1(scm: ScmProvider): ScmOAuth1Login {
  if (scm.login.kind !== 'oauth1') throw new Error(`expected an OAuth 1.0a login, not ${scm.login.kind}`);
  return scm.login;
}

/*
 * The contract's repositories are `<owner>/<name>`: here the owner is a project key. Clone
 * credentials come from SVC_GIT_* only (Bitbucket Server refuses OAuth tokens for git), so the
 * contract's token-based netrc has no Bitbucket Server form: the driver's provider always has the
 * clone account, and the netrc the contract expects from a token is that account.
 */
const CLONE_ACCOUNT = { gitUsername: 'ci-bot', gitPassword: 'personal-access-token' };

const driver: ScmDoubleDriver = {
  name: 'Bitbucket Server',
  async start() {
    const double = await startBitbucketServerDouble();
    const users = new Set<string>();
    return {
      ...forgeDoubleParts(double),
      provider: (git) =>
        createBitbucketServerProvider(
          optionsFor(double, {
            ...git,
            gitUsername: git?.gitUsername ?? CLONE_ACCOUNT.gitUsername,
            gitPassword: git?.gitPassword ?? CLONE_ACCOUNT.gitPassword,
          }),
        ),
      unreachableProvider: () =>
        createBitbucketServerProvider({ ...optionsFor(double), server: 'http://127.0.0.1:1' }),
      addUser: (login, email, orgs, orgAdmin) => {
        users.add(login);
        return token(double.addUser({ login, email, orgs, orgAdmin }).token);
      },
      // The contract's owners are users or organizations: a user's repositories are in a project
      // named after them, which they administer (Bitbucket's personal projects are `~USER`).
      addRepo: (repo) =>
        void double.addRepo(
          users.has(repo.owner) ? { ...repo, admins: [...(repo.admins ?? []), repo.owner] } : repo,
        ),
      authorize: (url, login) => double.authorize(url, login),
      statuses: (_fullName, sha) =>
        double.statuses(sha).map((s) => ({
          state: s.state,
          context: s.key,
          description: s.description,
          targetUrl: s.url,
        })),
      expectedState: toBitbucketServerState,
      netrcLogin: () => ({ login: CLONE_ACCOUNT.gitUsername, password: CLONE_ACCOUNT.gitPassword }),
      exhaustRateLimit: (resetAt) => double.exhaustRateLimit(resetAt),
    };
  },
};

providerContract(driver);

describe('Bitbucket Server specifics', () => {
  let double: BitbucketServerDouble;
  let scm: ScmProvider;
  let alice: ScmToken;
  beforeAll(async () => {
    double = await startBitbucketServerDouble();
    alice = token(double.addUser({ login: 'alice', orgAdmin: ['PRJ'] }).token);
    double.addRepo({ owner: 'PRJ', name: 'app', private: true, admins: ['alice'] });
    double.commit('PRJ/app', 'main', { '.drone.yml': 'kind: pipeline\n' }, 'first', 'alice');
    scm = createBitbucketServerProvider(optionsFor(double));
  });
  afterAll(async () => {
    expect(double.unknownCalls()).toEqual([]);
    await double.close();
  });

  it('names repositories by project key and slug, with a clone URL without the user in it', async () => {
    const repo = await scm.findRepo(alice, { namespace: 'PRJ', name: 'app' });
    expect(repo).toMatchObject({ namespace: 'PRJ', name: 'app', private: true, defaultBranch: 'main' });
    expect(new URL(repo.cloneUrl).username).toBe('');
    expect(repo.link).toMatch(/\/projects\/PRJ\/repos\/app\/browse$/);
  });

  it('reads personal repositories (`~USER`), and their owner administers them', async () => {
    double.addRepo({ owner: '~alice', name: 'notes' });
    const repos = await scm.listRepos(alice);
    expect(repos.find((r) => r.name === 'notes')).toMatchObject({
      namespace: expect.stringMatching(/^~alice$/i) as unknown,
      perm: { read: true, write: true, admin: true },
    });
    expect(await scm.membership(alice, '~ALICE')).toEqual({ member: true, admin: true });
    expect(await scm.membership(alice, '~bob')).toEqual({ member: false, admin: false });
  });

  it('gives no clone credentials without SVC_GIT_*: OAuth tokens cannot clone', () => {
    expect(scm.netrc(alice, { private: true, cloneUrl: `${double.url}/scm/prj/app.git` })).toBeUndefined();
  });

  it('creates the webhook without pr:from_ref_updated on servers before 7.0', async () => {
    const old = await startBitbucketServerDouble({ version: '6.10.0' });
    try {
      const bob = token(old.addUser({ login: 'bob' }).token);
      old.addRepo({ owner: 'OLD', name: 'app', admins: ['bob'] });
      const provider = createBitbucketServerProvider(optionsFor(old));
      await provider.createHook(
        bob,
        { namespace: 'OLD', name: 'app' },
        { url: 'https://ci.example.com/hook', secret: 's'.repeat(32) },
      );
      expect(old.hooks('OLD/app')).toEqual([
        {
          url: 'https://ci.example.com/hook',
          secret: 's'.repeat(32),
          events: ['repo:refs_changed', 'pr:opened', 'pr:modified'],
        },
      ]);
    } finally {
      await old.close();
    }
  });

  it('signs the OAuth legs with the consumer key: an unknown key or another private key is refused, naming the problem', async () => {
    const unknown = createBitbucketServerProvider({ ...optionsFor(double), consumerKey: 'not-svc' });
    const error = await expectCode(
      oauth1(unknown).start('https://ci.example.com/login?state=s'),
      'UNAUTHORIZED',
    );
    expect(error.message).toContain('consumer_key_unknown');
    const other = await startBitbucketServerDouble();
    try {
      const wrongKey = createBitbucketServerProvider({
        ...optionsFor(double),
        privateKey: createPrivateKey(other.privateKeyPem),
      });
      const refused = await expectCode(
        oauth1(wrongKey).start('https://ci.example.com/login?state=s'),
        'UNAUTHORIZED',
      );
      expect(refused.message).toContain('signature_invalid');
      await expectCode(wrongKey.currentUser(alice), 'UNAUTHORIZED');
    } finally {
      await other.close();
    }
  });

  it('says why a denied login failed, and keeps the token’s expiry', async () => {
    const login = oauth1(scm);
    const started = await login.start('https://ci.example.com/login?state=s');
    const denied = await double.authorize(started.authorizeUrl, 'alice', { deny: true });
    expect(denied.searchParams.get('oauth_verifier')).toBe('denied');
    await expectCode(login.exchange(started.requestToken, 'denied'), 'UNAUTHORIZED');
    const again = await login.start('https://ci.example.com/login?state=t');
    const back = await double.authorize(again.authorizeUrl, 'alice');
    const fresh = await login.exchange(again.requestToken, back.searchParams.get('oauth_verifier') ?? '');
    // Five years, as Bitbucket's oauth_expires_in says.
    expect(fresh.expiry - Date.now()).toBeGreaterThan(157_000_000_000);
    expect(fresh.refresh).toBe('');
  });

  it('delivers a signed push that parses to an incomplete build of the pushed commit', async () => {
    const receiver = await startReceiver();
    try {
      await scm.createHook(
        alice,
        { namespace: 'PRJ', name: 'app' },
        { url: receiver.url, secret: 'x'.repeat(32) },
      );
      const sha = double.commit('PRJ/app', 'main', { 'a.txt': 'a' }, 'second', 'alice');
      expect(await double.push('PRJ/app', 'main', receiver.url)).toBe(204);
      const [request] = receiver.requests;
      if (request === undefined) throw new Error('no delivery');
      const result = await scm.parseHook(request, () => Promise.resolve('x'.repeat(32)));
      expect(result).toMatchObject({ kind: 'build', build: { event: 'push', after: sha, incomplete: true } });
      expect(await scm.findCommit(alice, { namespace: 'PRJ', name: 'app' }, { sha })).toMatchObject({
        message: 'second',
        authorLogin: 'alice',
      });
    } finally {
      await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
    }
  });
});

describe('SVC_SCMF_SKIP_VERIFY', () => {
  let double: BitbucketServerDouble;
  let alice: ScmToken;
  beforeAll(async () => {
    double = await startBitbucketServerDouble({ https: true });
    alice = token(double.addUser({ login: 'alice' }).token);
  });
  afterAll(() => double.close());

  it('refuses a self-signed certificate by default', async () => {
    await expect(createBitbucketServerProvider(optionsFor(double)).currentUser(alice)).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(
        /^Bitbucket Server GET \/plugins\/servlet\/applinks\/whoami: /,
      ) as unknown,
    });
    await expect(
      oauth1(createBitbucketServerProvider(optionsFor(double))).start('https://ci.example.com/login'),
    ).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('accepts it with skipVerify, for the OAuth legs and API calls', async () => {
    const scm = createBitbucketServerProvider({ ...optionsFor(double), skipVerify: true });
    expect((await scm.currentUser(alice)).login).toBe('alice');
    const started = await oauth1(scm).start('https://ci.example.com/login?state=s');
    const back = await double.authorize(started.authorizeUrl, 'alice');
    const logged = await oauth1(scm).exchange(
      started.requestToken,
      back.searchParams.get('oauth_verifier') ?? '',
    );
    expect((await scm.currentUser(logged)).login).toBe('alice');
  });
});
