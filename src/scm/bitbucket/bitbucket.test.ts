import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBitbucketDouble, type BitbucketDouble } from '../../../test/doubles/bitbucket/index.js';
import type { GitAuthOptions } from '../netrc.js';
import { providerContract, type ScmDoubleDriver } from '../provider.case.js';
import { authorizeAs, expectCode, forgeDoubleParts, oauth2Login } from '../provider-harness.case.js';
import { TokenRefresher } from '../refreshing.js';
import { toBitbucketState } from './convert.js';
import { createBitbucketProvider, type BitbucketOptions } from './index.js';

function optionsFor(
  double: BitbucketDouble,
  git: Partial<GitAuthOptions> = {},
  trace?: (line: string) => void,
): BitbucketOptions {
  return {
    clientId: double.key,
    clientSecret: double.secret,
    server: double.url,
    apiServer: double.url,
    gitAlwaysAuth: git.gitAlwaysAuth ?? false,
    gitUsername: git.gitUsername ?? null,
    gitPassword: git.gitPassword ?? null,
    trace,
  };
}

const driver: ScmDoubleDriver = {
  name: 'Bitbucket Cloud',
  gaps: {
    rateLimit: 'Bitbucket’s 429 does not say when the limit resets (svc waits a minute)',
  },
  async start() {
    const double = await startBitbucketDouble();
    return {
      ...forgeDoubleParts(double),
      provider: (git) => createBitbucketProvider(optionsFor(double, git)),
      unreachableProvider: () =>
        createBitbucketProvider({ ...optionsFor(double), apiServer: 'http://127.0.0.1:1' }),
      authorize: authorizeAs,
      statuses: (fullName, sha) =>
        double.statuses(fullName, sha).map(({ target_url, ...rest }) => ({ ...rest, targetUrl: target_url })),
      expectedState: toBitbucketState,
      netrcLogin: (t) => ({ login: 'x-token-auth', password: t.token }),
      exhaustRateLimit: (resetAt) => double.exhaustRateLimit(resetAt),
    };
  },
};

providerContract(driver);

describe('Bitbucket Cloud specifics', () => {
  let double: BitbucketDouble;
  beforeAll(async () => {
    double = await startBitbucketDouble();
    double.addUser({ login: 'alice' });
  });
  afterAll(() => double.close());

  it('logs in with the consumer’s key and secret over HTTP Basic, traces it with SVC_SCMA_DEBUG without secrets, and refreshes', async () => {
    const lines: string[] = [];
    const scm = createBitbucketProvider(optionsFor(double, {}, (line) => lines.push(line)));
    const oauth = oauth2Login(scm);
    const url = new URL(oauth.authorizeUrl('st', 'https://ci.example.com/login'));
    expect(`${url.origin}${url.pathname}`).toBe(`${double.url}/site/oauth2/authorize`);
    const code = (await authorizeAs(url.href, 'alice')).searchParams.get('code') ?? '';
    const first = await oauth.exchangeCode(code, 'https://ci.example.com/login');
    expect(first.expiry - Date.now()).toBeGreaterThan(7_100_000);
    await expectCode(oauth.exchangeCode(code, 'https://ci.example.com/login'), 'UNAUTHORIZED');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/login starts at .*\/site\/oauth2\/authorize for client_id=/);
    expect(lines[1]).toMatch(/grant_type=authorization_code .*HTTP 200 access_token=\[redacted\]/);
    expect(lines[2]).toMatch(/HTTP 400 error=invalid_grant/);
    for (const line of lines) {
      expect(line).not.toContain(first.token);
      expect(line).not.toContain(double.secret);
      expect(line).not.toContain(code);
    }
    const stored: string[] = [];
    const refreshing = new TokenRefresher(
      scm,
      { replaceScmToken: (old) => Promise.resolve(stored.push(old)) },
      () => 0,
    ).provider();
    double.advance(7_201_000);
    expect((await refreshing.currentUser(first)).login).toBe('alice');
    expect(stored).toEqual([first.token]);
  });

  it('answers 410 where Atlassian removed the cross-workspace listings, which svc does not call', async () => {
    const alice = double.addUser({ login: 'alice3' }).token;
    const answer = await fetch(`${double.url}/2.0/repositories?role=member`, {
      headers: { authorization: `Bearer ${alice}` },
    });
    expect(answer.status).toBe(410);
    expect(await answer.json()).toMatchObject({
      error: { message: 'CHANGE-2770 - Functionality has been deprecated' },
    });
  });
});
