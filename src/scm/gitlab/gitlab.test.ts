import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitLabDouble, type GitLabDouble } from '../../../test/doubles/gitlab/index.js';
import { selfSignedCertificate } from '../../../test/support/self-signed.js';
import type { ScmToken } from '../../core/scm.js';
import type { GitAuthOptions } from '../netrc.js';
import { providerContract, type ScmDoubleDriver } from '../provider.case.js';
import {
  authorizeAs,
  authorizeInsecure,
  expectCode,
  forgeDoubleParts,
  oauth2Login,
  token,
} from '../provider-harness.case.js';
import { TokenRefresher } from '../refreshing.js';
import { toGitLabState } from './convert.js';
import { createGitLabProvider, type GitLabOptions } from './index.js';

function optionsFor(double: GitLabDouble, git: Partial<GitAuthOptions> = {}): GitLabOptions {
  return {
    server: double.url,
    clientId: double.clientId,
    clientSecret: double.clientSecret,
    skipVerify: false,
    gitAlwaysAuth: git.gitAlwaysAuth ?? false,
    gitUsername: git.gitUsername ?? null,
    gitPassword: git.gitPassword ?? null,
  };
}

const driver: ScmDoubleDriver = {
  name: 'GitLab',
  gaps: {
    commitAccount: 'GitLab’s commits carry the author’s name and email, not an account',
  },
  async start() {
    const double = await startGitLabDouble();
    return {
      ...forgeDoubleParts(double),
      provider: (git) => createGitLabProvider(optionsFor(double, git)),
      unreachableProvider: () =>
        createGitLabProvider({ ...optionsFor(double), server: 'http://127.0.0.1:1' }),
      authorize: authorizeAs,
      statuses: (fullName, sha) =>
        double.statuses(fullName, sha).map(({ target_url, ...rest }) => ({ ...rest, targetUrl: target_url })),
      expectedState: toGitLabState,
      netrcLogin: (t) => ({ login: 'oauth2', password: t.token }),
      exhaustRateLimit: (resetAt) => double.exhaustRateLimit(resetAt),
    };
  },
};

providerContract(driver);

describe('GitLab specifics', () => {
  let double: GitLabDouble;
  beforeAll(async () => {
    double = await startGitLabDouble();
    double.addUser({ login: 'alice' });
    double.addRepo({ owner: 'alice', name: 'demo' });
    double.commit('alice/demo', 'main', { 'a.txt': 'a' });
  });
  afterAll(() => double.close());

  it('asks for the api scope, and refreshes two-hour tokens before and after they expire', async () => {
    const scm = createGitLabProvider(optionsFor(double));
    const oauth = oauth2Login(scm);
    const url = new URL(oauth.authorizeUrl('st', 'https://ci.example.com/login'));
    expect(url.searchParams.get('scope')).toBe('api');
    expect(url.searchParams.get('response_type')).toBe('code');
    const code = (await authorizeAs(url.href, 'alice')).searchParams.get('code') ?? '';
    const first = await oauth.exchangeCode(code, 'https://ci.example.com/login');
    expect(first.expiry - Date.now()).toBeGreaterThan(7_100_000);
    // A redirect URI other than the authorize request's is refused, as is a used code.
    await expectCode(oauth.exchangeCode(code, 'https://ci.example.com/login'), 'UNAUTHORIZED');
    const stored: string[] = [];
    const users = { replaceScmToken: (old: string) => Promise.resolve(stored.push(old)) };
    const trusting = new TokenRefresher(scm, users, () => 0).provider();
    double.advance(7_201_000);
    expect((await trusting.currentUser(first)).login).toBe('alice');
    expect(stored).toEqual([first.token]);
    // The old refresh token is gone with the refresh.
    await expectCode(oauth.refresh?.(first) ?? Promise.resolve(), 'UNAUTHORIZED');
  });

  it('reads the level from the project’s members when access is inherited from a parent group', async () => {
    const scm = createGitLabProvider(optionsFor(double));
    const dora = token(double.addUser({ login: 'dora' }).token);
    double.addRepo({ owner: 'group', name: 'one', private: true, writers: ['dora'] });
    double.addRepo({ owner: 'group', name: 'two', private: true, admins: ['dora'] });
    double.inheritAccess('group/one');
    double.inheritAccess('group/two');
    const repos = await scm.listRepos(dora);
    expect(repos.map((r) => [r.name, r.perm])).toEqual([
      ['one', { read: true, write: true, admin: false }],
      ['two', { read: true, write: true, admin: true }],
    ]);
    expect((await scm.findRepo(dora, { namespace: 'group', name: 'two' })).perm.admin).toBe(true);
  });

  it('files statuses under the build’s branch, and takes a repeated state as no failure', async () => {
    const scm = createGitLabProvider(optionsFor(double));
    const alice = token(double.addUser({ login: 'alice2' }).token);
    double.addRepo({ owner: 'alice2', name: 'app' });
    const sha = double.commit('alice2/app', 'feature/x', { 'b.txt': 'b' });
    const status = {
      context: 'ci/svc',
      description: 'd',
      targetUrl: 'https://ci.example.com/x/1',
      ref: 'refs/heads/feature/x',
    };
    await scm.setStatus(alice, { namespace: 'alice2', name: 'app' }, sha, { ...status, state: 'running' });
    await scm.setStatus(alice, { namespace: 'alice2', name: 'app' }, sha, { ...status, state: 'running' });
    await scm.setStatus(alice, { namespace: 'alice2', name: 'app' }, sha, { ...status, state: 'error' });
    expect(double.statuses('alice2/app', sha).map((s) => s.state)).toEqual(['running', 'failed']);
  });
});

describe('SVC_SCMD_SKIP_VERIFY', () => {
  let double: GitLabDouble;
  let alice: ScmToken;
  beforeAll(async () => {
    double = await startGitLabDouble({ tls: selfSignedCertificate() });
    alice = token(double.addUser({ login: 'alice' }).token);
  });
  afterAll(() => double.close());

  it('refuses a self-signed certificate by default, accepts it with skipVerify for API calls and the code exchange', async () => {
    await expect(createGitLabProvider(optionsFor(double)).currentUser(alice)).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/^GitLab GET \/api\/v4\/user: /) as unknown,
    });
    const scm = createGitLabProvider({ ...optionsFor(double), skipVerify: true });
    expect((await scm.currentUser(alice)).login).toBe('alice');
    const redirect = 'https://ci.example.com/login';
    const back = await authorizeInsecure(`${oauth2Login(scm).authorizeUrl('s', redirect)}&login=alice`);
    const logged = await oauth2Login(scm).exchangeCode(back.searchParams.get('code') ?? '', redirect);
    expect((await scm.currentUser(logged)).login).toBe('alice');
  });
});
