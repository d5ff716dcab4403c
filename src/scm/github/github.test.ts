import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubDouble, type GitHubDouble } from '../../../test/doubles/github/index.js';
import { selfSignedCertificate } from '../../../test/support/self-signed.js';
import { SvcError } from '../../core/errors.js';
import type { ScmProvider, ScmToken } from '../../core/scm.js';
import { ScmRateLimitError } from '../errors.js';
import type { GitAuthOptions } from '../netrc.js';
import { providerContract, type ScmDoubleDriver } from '../provider.case.js';
import { authorizeAs, forgeDoubleParts, oauth2Login, token } from '../provider-harness.case.js';
import { toGitHubState } from './convert.js';
import { createGitHubProvider, type GitHubOptions } from './index.js';
import { githubEndpoints } from './options.js';

/** Provider options for a double: github.com flavour gets the API URL, GHES derives it from the server. */
function optionsFor(
  double: GitHubDouble,
  enterprise: boolean,
  git: Partial<GitAuthOptions> = {},
): GitHubOptions {
  return {
    clientId: double.clientId,
    clientSecret: double.clientSecret,
    scopes: ['repo', 'repo:status', 'user:email', 'read:org'],
    server: double.url,
    skipVerify: false,
    gitAlwaysAuth: git.gitAlwaysAuth ?? false,
    gitUsername: git.gitUsername ?? null,
    gitPassword: git.gitPassword ?? null,
    ...(enterprise ? {} : { apiUrl: double.apiUrl }),
  };
}

function driver(enterprise: boolean): ScmDoubleDriver {
  return {
    name: enterprise ? 'GitHub Enterprise Server' : 'GitHub',
    async start() {
      const double = await startGitHubDouble({ enterprise });
      return {
        ...forgeDoubleParts(double),
        provider: (git) => createGitHubProvider(optionsFor(double, enterprise, git)),
        unreachableProvider: () =>
          createGitHubProvider({ ...optionsFor(double, true), server: 'http://127.0.0.1:1' }),
        authorize: authorizeAs,
        statuses: (fullName, sha) =>
          double.statuses(fullName, sha).map((s) => ({
            state: s.state,
            context: s.context,
            description: s.description,
            targetUrl: s.target_url,
          })),
        expectedState: toGitHubState,
        netrcLogin: (t) => ({ login: t.token, password: 'x-oauth-basic' }),
        exhaustRateLimit: (resetAt) => double.exhaustRateLimit(resetAt),
      };
    },
  };
}

providerContract(driver(false));
providerContract(driver(true));

describe('GitHub endpoints', () => {
  it('uses api.github.com for github.com and /api/v3 for GitHub Enterprise Server', () => {
    expect(githubEndpoints('https://github.com').api).toBe('https://api.github.com');
    expect(githubEndpoints('https://github.com/').authorize).toBe('https://github.com/login/oauth/authorize');
    expect(githubEndpoints('https://ghe.example.com/').api).toBe('https://ghe.example.com/api/v3');
    expect(githubEndpoints('https://ghe.example.com').accessToken).toBe(
      'https://ghe.example.com/login/oauth/access_token',
    );
  });
});

describe('GitHub provider', () => {
  let double: GitHubDouble;
  let scm: ScmProvider;
  let alice: ScmToken;

  beforeAll(async () => {
    double = await startGitHubDouble();
    alice = token(double.addUser({ login: 'alice', email: 'alice@example.com' }).token);
    double.addUser({ login: 'bob' });
    double.addRepo({ owner: 'alice', name: 'demo', readers: ['bob'] });
    scm = createGitHubProvider(optionsFor(double, false));
  });

  afterAll(() => double.close());

  it('asks for the configured scopes, space-separated, on the server’s authorize page', () => {
    const url = new URL(oauth2Login(scm).authorizeUrl('st', 'https://ci.example.com/login'));
    expect(`${url.origin}${url.pathname}`).toBe(`${double.url}/login/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: double.clientId,
      redirect_uri: 'https://ci.example.com/login',
      scope: 'repo repo:status user:email read:org',
      state: 'st',
    });
  });

  it('reports GitHub’s reason when the client secret is wrong', async () => {
    const wrong = createGitHubProvider({ ...optionsFor(double, false), clientSecret: 'wrong' });
    const code = double.authorizationCode('alice');
    await expect(oauth2Login(wrong).exchangeCode(code, 'https://ci.example.com/login')).rejects.toMatchObject(
      {
        code: 'UNAUTHORIZED',
        message: expect.stringContaining('client_id and/or client_secret') as unknown,
      },
    );
  });

  it('follows Link pages of 100 repositories', async () => {
    const carol = token(double.addUser({ login: 'carol' }).token);
    for (let i = 0; i < 250; i++) double.addRepo({ owner: 'carol', name: `r${i}` });
    const before = double.requests().length;
    expect(await scm.listRepos(carol)).toHaveLength(250);
    const pages = double
      .requests()
      .slice(before)
      .map((r) => new URL(r.url, double.url))
      .filter((u) => u.pathname === '/user/repos');
    expect(pages.map((u) => [u.searchParams.get('per_page'), u.searchParams.get('page') ?? '1'])).toEqual([
      ['100', '1'],
      ['100', '2'],
      ['100', '3'],
    ]);
  });

  it('takes the primary email when the profile shows none, the public one otherwise', async () => {
    const shown = token(
      double.addUser({ login: 'erin', email: 'erin@example.com', publicEmail: true }).token,
    );
    const before = double.requests().length;
    expect((await scm.currentUser(shown)).email).toBe('erin@example.com');
    expect(
      double
        .requests()
        .slice(before)
        .map((r) => r.url),
    ).toEqual(['/user']);
    expect((await scm.currentUser(alice)).email).toBe('alice@example.com');
  });

  it('reads files over 1 MB through the raw media type', async () => {
    const big = 'x'.repeat(1024 * 1024 + 10);
    const sha = double.commit('alice/demo', 'main', { 'big.txt': big });
    expect(await scm.fileContents(alice, { namespace: 'alice', name: 'demo' }, 'big.txt', sha)).toBe(big);
  });

  it('cuts status descriptions to the 140 characters GitHub accepts', async () => {
    const sha = double.commit('alice/demo', 'main', { a: '1' });
    await scm.setStatus(alice, { namespace: 'alice', name: 'demo' }, sha, {
      state: 'running',
      context: 'ci',
      description: 'd'.repeat(300),
      targetUrl: '',
      ref: 'refs/heads/main',
    });
    const [posted] = double.statuses('alice/demo', sha);
    expect(posted?.state).toBe('pending');
    expect([...(posted?.description ?? '')]).toHaveLength(140);
  });

  it('answers FORBIDDEN when a reader posts a status', async () => {
    const frank = token(double.addUser({ login: 'frank' }).token);
    double.addRepo({ owner: 'alice', name: 'locked', private: true, readers: ['frank'] });
    const sha = double.commit('alice/locked', 'main', { c: '1' });
    const status = {
      state: 'success' as const,
      context: 'ci',
      description: '',
      targetUrl: '',
      ref: 'refs/heads/main',
    };
    await expect(
      scm.setStatus(frank, { namespace: 'alice', name: 'locked' }, sha, status),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(double.statuses('alice/locked', sha)).toEqual([]);
  });

  it('gives the reset time on the rate-limit error itself', async () => {
    const limited = await startGitHubDouble();
    try {
      const t = token(limited.addUser({ login: 'gail' }).token);
      const resetAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 120_000);
      limited.exhaustRateLimit(resetAt);
      const error = await createGitHubProvider(optionsFor(limited, false))
        .listRepos(t)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(ScmRateLimitError);
      expect((error as ScmRateLimitError).resetAt).toEqual(resetAt);
      expect((error as ScmRateLimitError).code).toBe('RATE_LIMITED');
    } finally {
      await limited.close();
    }
  });

  it('reports a 5xx answer as INTERNAL naming GitHub and the call, after retrying it', async () => {
    let calls = 0;
    const broken = createServer((_req, res) => {
      calls += 1;
      res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = broken.address() as AddressInfo;
      const provider = createGitHubProvider({
        ...optionsFor(double, true),
        server: `http://127.0.0.1:${port}`,
      });
      const error = await provider
        .findRepo(alice, { namespace: 'alice', name: 'demo' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SvcError);
      expect((error as SvcError).code).toBe('INTERNAL');
      expect((error as SvcError).message).toBe(
        'GitHub GET /api/v3/repos/alice/demo: HTTP 502 bad gateway (after 3 attempts)',
      );
      expect(calls).toBe(3);
    } finally {
      await new Promise<void>((resolve) => broken.close(() => resolve()));
    }
  });
});

describe('GitHub Enterprise Server', () => {
  it('calls the API under /api/v3 of the server and nothing at its root', async () => {
    const double = await startGitHubDouble({ enterprise: true });
    try {
      const t = token(double.addUser({ login: 'alice' }).token);
      double.addRepo({ owner: 'alice', name: 'demo' });
      const scm = createGitHubProvider(optionsFor(double, true));
      expect(double.apiUrl).toBe(`${double.url}/api/v3`);
      expect((await scm.findRepo(t, { namespace: 'alice', name: 'demo' })).name).toBe('demo');
      await scm.currentUser(t);
      // The profile shows no email, so the primary one is asked for too.
      expect(double.requests().map((r) => new URL(r.url, double.url).pathname)).toEqual([
        '/api/v3/repos/alice/demo',
        '/api/v3/user',
        '/api/v3/user/emails',
      ]);
      // The double refuses API paths at the root in enterprise mode, as GHES does.
      const root = await fetch(`${double.url}/user`, { headers: { authorization: `Bearer ${t.token}` } });
      expect(root.status).toBe(404);
    } finally {
      await double.close();
    }
  });
});

describe('SVC_SCMC_SKIP_VERIFY', () => {
  let double: GitHubDouble;
  let alice: ScmToken;

  beforeAll(async () => {
    double = await startGitHubDouble({ enterprise: true, tls: selfSignedCertificate() });
    alice = token(double.addUser({ login: 'alice' }).token);
  });

  afterAll(async () => {
    await double.close();
  });

  it('refuses a self-signed certificate by default', async () => {
    const scm = createGitHubProvider(optionsFor(double, true));
    await expect(scm.currentUser(alice)).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/^GitHub GET \/api\/v3\/user: /) as unknown,
    });
  });

  it('accepts it with skipVerify, for API calls and the code exchange', async () => {
    const scm = createGitHubProvider({ ...optionsFor(double, true), skipVerify: true });
    expect((await scm.currentUser(alice)).login).toBe('alice');
    const t = await oauth2Login(scm).exchangeCode(
      double.authorizationCode('alice'),
      'https://ci.example.com/login',
    );
    expect((await scm.currentUser(t)).login).toBe('alice');
  });
});
