import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGiteaDouble, type GiteaDouble } from '../../../test/doubles/gitea/index.js';
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
import { toGiteaState } from './convert.js';
import { createGiteaProvider, type GiteaOptions } from './index.js';

function optionsFor(double: GiteaDouble, git: Partial<GitAuthOptions> = {}): GiteaOptions {
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

/** Logs `login` in through the double's authorize page and the token endpoint. */
async function logIn(double: GiteaDouble, login: string, options?: Partial<GiteaOptions>): Promise<ScmToken> {
  const oauth = oauth2Login(createGiteaProvider({ ...optionsFor(double), ...options }));
  const redirect = 'https://ci.example.com/login';
  const answer = await fetch(`${oauth.authorizeUrl('s', redirect)}&login=${login}`, { redirect: 'manual' });
  const code = new URL(answer.headers.get('location') ?? '').searchParams.get('code') ?? '';
  return oauth.exchangeCode(code, redirect);
}

function driver(forgejo: boolean): ScmDoubleDriver {
  return {
    name: forgejo ? 'Forgejo' : 'Gitea',
    gaps: {
      rateLimit: 'Gitea and Forgejo have no rate limits of their own',
    },
    async start() {
      const double = await startGiteaDouble({ forgejo });
      return {
        ...forgeDoubleParts(double),
        provider: (git) => createGiteaProvider(optionsFor(double, git)),
        unreachableProvider: () =>
          createGiteaProvider({ ...optionsFor(double), server: 'http://127.0.0.1:1' }),
        authorize: authorizeAs,
        statuses: (fullName, sha) =>
          double
            .statuses(fullName, sha)
            .map(({ target_url, ...rest }) => ({ ...rest, targetUrl: target_url })),
        expectedState: toGiteaState,
        netrcLogin: (t) => ({ login: t.token, password: 'x-oauth-basic' }),
      };
    },
  };
}

providerContract(driver(false));
providerContract(driver(true));

describe('Gitea tokens expire and are refreshed', () => {
  let double: GiteaDouble;
  beforeAll(async () => {
    double = await startGiteaDouble({ forgejo: true });
    double.addUser({ login: 'alice' });
  });
  afterAll(() => double.close());

  it('gives tokens with their expiry and a refresh token, and refreshes them', async () => {
    const before = Date.now();
    const first = await logIn(double, 'alice');
    expect(first.refresh).not.toBe('');
    expect(first.expiry).toBeGreaterThanOrEqual(before + 3_600_000);
    const scm = createGiteaProvider(optionsFor(double));
    const second = await oauth2Login(scm).refresh?.(first);
    expect(second?.token).not.toBe(first.token);
    expect((await scm.currentUser(second ?? first)).login).toBe('alice');
    // Forgejo's refresh tokens are single use: the old one is refused as the user's to log in again.
    await expectCode(oauth2Login(scm).refresh?.(first) ?? Promise.resolve(), 'UNAUTHORIZED');
  });

  it('refreshes a token about to expire before the call, and an expired one after its 401, storing it back', async () => {
    const stored: { old: string; fresh: ScmToken }[] = [];
    const users = {
      replaceScmToken: (old: string, fresh: ScmToken) => {
        stored.push({ old, fresh });
        return Promise.resolve(1);
      },
    };
    const soon = await logIn(double, 'alice');
    const refresher = new TokenRefresher(
      createGiteaProvider(optionsFor(double)),
      users,
      () => soon.expiry - 30_000,
    );
    const scm = refresher.provider();
    // Two calls at once with a token that expires in 30 s: one refresh, both calls succeed.
    const [a, b] = await Promise.all([scm.currentUser(soon), scm.listRepos(soon)]);
    expect(a.login).toBe('alice');
    expect(b).toEqual([]);
    expect(stored).toHaveLength(1);
    expect(stored[0]?.old).toBe(soon.token);

    // The server's clock says the token lives on; Gitea's says it is dead: the 401 brings a refresh.
    const later = await logIn(double, 'alice');
    const trusting = new TokenRefresher(createGiteaProvider(optionsFor(double)), users, () => 0).provider();
    double.advance(3_601_000);
    expect((await trusting.currentUser(later)).login).toBe('alice');
    expect(stored.at(-1)?.old).toBe(later.token);
    // Calls that still hold the old token use the refreshed one, without refreshing again.
    const issued = double.issuedTokens();
    expect((await trusting.currentUser(later)).login).toBe('alice');
    expect(double.issuedTokens()).toBe(issued);
  });
});

describe('SVC_SCMB_SKIP_VERIFY', () => {
  let double: GiteaDouble;
  let alice: ScmToken;
  beforeAll(async () => {
    double = await startGiteaDouble({ tls: selfSignedCertificate() });
    alice = token(double.addUser({ login: 'alice' }).token);
  });
  afterAll(() => double.close());

  it('refuses a self-signed certificate by default', async () => {
    await expect(createGiteaProvider(optionsFor(double)).currentUser(alice)).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/^Gitea GET \/api\/v1\/user: /) as unknown,
    });
  });

  it('accepts it with skipVerify, for API calls and the code exchange', async () => {
    const scm = createGiteaProvider({ ...optionsFor(double), skipVerify: true });
    expect((await scm.currentUser(alice)).login).toBe('alice');
    // The browser's part (the authorize page), played over https without verification.
    const redirect = 'https://ci.example.com/login';
    const location = await authorizeInsecure(`${oauth2Login(scm).authorizeUrl('s', redirect)}&login=alice`);
    const code = location.searchParams.get('code') ?? '';
    const logged = await oauth2Login(scm).exchangeCode(code, redirect);
    expect((await scm.currentUser(logged)).login).toBe('alice');
    await expect(
      oauth2Login(createGiteaProvider(optionsFor(double))).exchangeCode(code, redirect),
    ).rejects.toMatchObject({
      code: 'INTERNAL',
    });
  });
});
