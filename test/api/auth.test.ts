import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiToken } from '../../src/server/auth/api-token.js';
import { seedUser } from '../../src/server/bootstrap/seed-user.js';
import { call, loginAs, tokenOf, type BrowserSession } from './client.js';
import { startHarness, type Harness } from './harness.js';

const MACHINE_TOKEN = '0123456789abcdef0123456789abcdef';

describe('API authentication', () => {
  let h: Harness;
  let session: BrowserSession;
  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat' });
    session = await loginAs(h, 'octocat');
    await seedUser(h.store.users, { username: 'robot', machine: true, admin: true, token: MACHINE_TOKEN });
  });
  afterAll(() => h.close());

  it('accepts the machine account of SVC_USER_CREATE by its bearer token', async () => {
    const me = await call(h, '/api/user', { token: MACHINE_TOKEN });
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ login: 'robot', machine: true, admin: true, active: true });
    expect(me.json).not.toHaveProperty('token');
    expect(me.json).not.toHaveProperty('csrf');
    expect(me.headers.get('cache-control')).toBe('no-store');
  });

  it('accepts a person by the API token POST /api/user/token gives, and refuses unknown tokens', async () => {
    const token = await tokenOf(h, session);
    expect(hashApiToken(token)).toBe((await h.store.users.findLogin('octocat'))?.tokenHash);
    expect((await call(h, '/api/user', { token })).json).toMatchObject({ login: 'octocat' });
    const wrong = await call(h, '/api/user', { token: 'f'.repeat(32) });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ code: 'UNAUTHORIZED', message: 'invalid API token' });
    const upper = await call(h, '/api/user', { token: token.toUpperCase() });
    expect(upper.status).toBe(401);
  });

  it('answers 401 in the shared error shape without credentials', async () => {
    const anonymous = await call(h, '/api/user');
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toMatchObject({ code: 'UNAUTHORIZED' });
    const malformed = await fetch(`${h.url}/api/user`, { headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
  });

  it('refuses inactive users, by token and by session', async () => {
    h.github.addUser({ login: 'sleeper' });
    const sleeper = await loginAs(h, 'sleeper');
    const token = await tokenOf(h, sleeper);
    const user = await h.store.users.findLogin('sleeper');
    if (user === undefined) throw new Error('sleeper was not created');
    await h.store.users.update({ ...user, active: false });
    const byToken = await call(h, '/api/user', { token });
    expect(byToken.status).toBe(403);
    expect(byToken.json).toEqual({ code: 'FORBIDDEN', message: 'the account sleeper is inactive' });
    expect((await call(h, '/api/user', { session: sleeper })).status).toBe(403);
  });

  it('requires the CSRF token on cookie-authenticated POSTs, not on bearer-token ones', async () => {
    const without = await call(h, '/api/user/token', { method: 'POST', session });
    expect(without.status).toBe(403);
    expect(without.json).toMatchObject({ code: 'FORBIDDEN' });
    expect((without.json as { message: string }).message).toContain('X-CSRF-Token');
    const wrong = await call(h, '/api/user/token', { method: 'POST', session, csrf: 'x'.repeat(43) });
    expect(wrong.status).toBe(403);
    const right = await call(h, '/api/user/token', { method: 'POST', session, csrf: session.csrf });
    // The CSRF token passed; svc keeps only the token's hash, so a session must ask for a new one.
    expect(right.status).toBe(409);
    expect(right.json).toMatchObject({ code: 'CONFLICT' });
    expect((right.json as { message: string }).message).toContain('POST /api/user/token?rotate=true');
    const token = await tokenOf(h, session);
    // Bearer tokens need no CSRF token; without ?rotate=true the caller gets its own token back,
    // as Drone's CLI expects.
    const echoed = await call(h, '/api/user/token', { method: 'POST', token });
    expect(echoed.status).toBe(200);
    expect(echoed.json).toMatchObject({ login: 'octocat', token });
  });

  it('gives the CSRF token in GET /api/user and in a readable cookie, tied to the session', async () => {
    const me = await call(h, '/api/user', { session });
    expect((me.json as { csrf: string }).csrf).toBe(session.csrf);
    const csrfCookie = session.setCookies.find((value) => value.startsWith('svc_csrf='));
    expect(csrfCookie).toBe(csrfCookie?.replace('; HttpOnly', ''));
    expect(csrfCookie?.split(';')[0]).toBe(`svc_csrf=${session.csrf}`);
    const other = await loginAs(h, 'octocat');
    expect(other.csrf).not.toBe(session.csrf);
  });

  it('rotates the API token on request, which ends other sessions but keeps the caller logged in', async () => {
    h.github.addUser({ login: 'rotator' });
    const browser = await loginAs(h, 'rotator');
    const elsewhere = await loginAs(h, 'rotator');
    const old = await tokenOf(h, browser);
    const rotated = await fetch(`${h.url}/api/user/token?rotate=true`, {
      method: 'POST',
      headers: { cookie: browser.cookie, 'x-csrf-token': browser.csrf },
    });
    const fresh = ((await rotated.json()) as { token: string }).token;
    expect(fresh).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh).not.toBe(old);
    expect((await call(h, '/api/user', { token: old })).status).toBe(401);
    expect((await call(h, '/api/user', { token: fresh })).status).toBe(200);
    expect((await call(h, '/api/user', { session: elsewhere })).status).toBe(401);
    const renewed = rotated.headers
      .getSetCookie()
      .map((value) => value.split(';')[0])
      .join('; ');
    expect((await call(h, '/api/user', { session: { ...browser, cookie: renewed } })).json).toMatchObject({
      login: 'rotator',
    });
  });

  it('ignores a forged session cookie', async () => {
    const forged = session.cookie.replace(
      /svc_session=(\d+)/,
      (_match, id: string) => `svc_session=${Number(id) + 1}`,
    );
    expect((await call(h, '/api/user', { session: { ...session, cookie: forged } })).status).toBe(401);
  });
});
