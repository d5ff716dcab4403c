import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGogsDouble, type GogsDouble } from '../../../test/doubles/gogs/index.js';
import { selfSignedCertificate } from '../../../test/support/self-signed.js';
import type { ScmToken } from '../../core/scm.js';
import type { GitAuthOptions } from '../netrc.js';
import { providerContract, type ScmDoubleDriver } from '../provider.case.js';
import { expectCode, forgeDoubleParts, passwordLogin, token } from '../provider-harness.case.js';
import { createGogsProvider, type GogsOptions } from './index.js';

function optionsFor(double: GogsDouble, git: Partial<GitAuthOptions> = {}): GogsOptions {
  return {
    server: double.url,
    skipVerify: false,
    gitAlwaysAuth: git.gitAlwaysAuth ?? false,
    gitUsername: git.gitUsername ?? null,
    gitPassword: git.gitPassword ?? null,
  };
}

const driver: ScmDoubleDriver = {
  name: 'Gogs',
  gaps: {
    rateLimit: 'Gogs has no rate limits',
    orgAdmin: 'no Gogs API tells an organization’s owners from its members',
    changedFiles: 'Gogs’ API v1 has no compare or changed-files endpoint: every change is answered not known',
  },
  async start() {
    const double = await startGogsDouble();
    return {
      ...forgeDoubleParts(double),
      provider: (git) => createGogsProvider(optionsFor(double, git)),
      unreachableProvider: () => createGogsProvider({ ...optionsFor(double), server: 'http://127.0.0.1:1' }),
      // Gogs cannot tell owners: a user is a member of every organization named, admin or not.
      addUser: (login, email, orgs, orgAdmin) =>
        token(double.addUser({ login, email, orgs: [...(orgs ?? []), ...(orgAdmin ?? [])] }).token),
      addRepo: (repo) => void double.addRepo({ defaultBranch: 'main', ...repo }),
      password: (login) => `${login}-password`,
      statuses: () => [],
      expectedState: (state) => state,
      netrcLogin: (t) => ({ login: t.token, password: 'x-oauth-basic' }),
      close: async () => {
        // Every call svc made is one the double knows: none fell through to Gogs' HTML 404.
        expect(double.unknownCalls()).toEqual([]);
        await double.close();
      },
    };
  },
};

providerContract(driver);

describe('Gogs login with username and password', () => {
  let double: GogsDouble;
  beforeAll(async () => {
    double = await startGogsDouble();
    double.addUser({ login: 'alice', password: 'wonderland' });
  });
  afterAll(() => double.close());

  it('creates a token named svc once, then reuses the token svc kept', async () => {
    const login = passwordLogin(createGogsProvider(optionsFor(double)));
    const first = await login.login('alice', 'wonderland');
    expect(double.tokenNames('alice')).toEqual(['test', 'svc']);
    // Gogs 0.13+ lists hashes, not tokens: without the kept token a new one would be needed.
    const again = await login.login('alice', 'wonderland', first);
    expect(again).toEqual(first);
    expect(double.tokenNames('alice')).toEqual(['test', 'svc']);
  });

  it('creates a token of another name when svc lost its token and Gogs refuses a second "svc"', async () => {
    const login = passwordLogin(createGogsProvider(optionsFor(double)));
    const fresh = await login.login('alice', 'wonderland', token('revoked'));
    expect(fresh.token).toMatch(/^[0-9a-f]{40}$/);
    expect(double.tokenNames('alice')).toHaveLength(3);
    expect(double.tokenNames('alice')[2]).toMatch(/^svc-\d{4}-/);
  });

  it('does not reuse a kept token before the password checked out', async () => {
    const login = passwordLogin(createGogsProvider(optionsFor(double)));
    const kept = await login.login('alice', 'wonderland');
    await expectCode(login.login('alice', 'guess', kept), 'UNAUTHORIZED');
  });
});

describe('SVC_SCME_SKIP_VERIFY', () => {
  let double: GogsDouble;
  let alice: ScmToken;
  beforeAll(async () => {
    double = await startGogsDouble({ tls: selfSignedCertificate() });
    alice = token(double.addUser({ login: 'alice' }).token);
  });
  afterAll(() => double.close());

  it('refuses a self-signed certificate by default', async () => {
    await expect(createGogsProvider(optionsFor(double)).currentUser(alice)).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/^Gogs GET \/api\/v1\/user: /) as unknown,
    });
  });

  it('accepts it with skipVerify, for the login too', async () => {
    const scm = createGogsProvider({ ...optionsFor(double), skipVerify: true });
    expect((await scm.currentUser(alice)).login).toBe('alice');
    const logged = await passwordLogin(scm).login('alice', 'alice-password');
    expect((await scm.currentUser(logged)).login).toBe('alice');
  });
});
