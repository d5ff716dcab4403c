import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, loginAs, tokenOf } from './client.js';
import { startHarness, type Harness } from './harness.js';

/** Issue 15's security checks over HTTP: headers on every answer, rate limits where guessing pays. */
describe('security headers and rate limits', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat' });
  });
  afterAll(() => h.close());

  it('sends the security headers on pages, API answers, errors and unknown paths', async () => {
    for (const path of ['/', '/healthz', '/api/user', '/api/nope', '/nope']) {
      const response = await fetch(`${h.url}${path}`);
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
      expect(response.headers.get('referrer-policy'), path).toBe('same-origin');
    }
  });

  it('answers 429 RATE_LIMITED past 30 token requests a minute from one address, and says when to retry', async () => {
    const token = await tokenOf(h, await loginAs(h, 'octocat'));
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    // Making the token above was the first request of the minute.
    for (let i = 1; i < 31; i++) {
      last = await call(h, '/api/user/token', { method: 'POST', token });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 29).every((status) => status === 200)).toBe(true);
    expect(statuses[29]).toBe(429);
    expect(last?.json).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(
        /^too many token requests from this address \(30 a minute\); try again in \d+ s$/,
      ) as unknown,
    });
    // Other routes are not limited.
    for (let i = 0; i < 40; i++) expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
  });

  it('limits login attempts to 60 a minute from one address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 62; i++)
      statuses.push((await fetch(`${h.url}/login`, { redirect: 'manual' })).status);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(1);
    expect(statuses.slice(0, 50).includes(429)).toBe(false);
  });

  describe('behind a proxy (SVC_SERVER_TRUSTED_PROXIES)', () => {
    /** Login attempts with X-Forwarded-For naming `client`; the statuses svc answered. */
    const attempts = async (server: Harness, count: number, client: (i: number) => string) => {
      const statuses: number[] = [];
      for (let i = 0; i < count; i++) {
        const headers = { 'x-forwarded-for': client(i) };
        statuses.push((await fetch(`${server.url}/login`, { redirect: 'manual', headers })).status);
      }
      return statuses;
    };

    it('counts each client behind a trusted proxy on its own', async () => {
      const proxied = await startHarness({ trustedProxies: ['127.0.0.1', '::1'] });
      try {
        expect((await attempts(proxied, 61, () => '203.0.113.7')).at(-1)).toBe(429);
        // Another client behind the same proxy is not limited by the first one's attempts.
        expect(await attempts(proxied, 5, () => '203.0.113.8')).not.toContain(429);
      } finally {
        await proxied.close();
      }
    });

    it('ignores X-Forwarded-For from an address that is not a trusted proxy: a client cannot pick its count', async () => {
      for (const trustedProxies of [[], ['10.9.9.9']]) {
        const direct = await startHarness({ trustedProxies });
        try {
          const statuses = await attempts(direct, 62, (i) => `198.51.100.${i}`);
          expect(statuses.slice(0, 60)).not.toContain(429);
          expect(statuses.at(-1)).toBe(429);
        } finally {
          await direct.close();
        }
      }
    });
  });

  // The limit follows the route the request reaches, not the raw URL: `/%6cogin` is `/login`.
  it('limits an escaped path to the route it reaches, in the same count', async () => {
    const fresh = await startHarness();
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 62; i++) {
        const path = i % 2 === 0 ? '/%6cogin' : '/login';
        statuses.push((await fetch(`${fresh.url}${path}`, { redirect: 'manual' })).status);
      }
      expect((await fetch(`${fresh.url}/%6cogin`, { redirect: 'manual' })).status).toBe(429);
      expect(statuses.slice(0, 60).includes(429)).toBe(false);
    } finally {
      await fresh.close();
    }
  });
});
