import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_FILTER_MESSAGE } from '../../src/server/auth/index.js';
import { hashApiToken } from '../../src/server/auth/api-token.js';
import { call, cookieHeader, loginAs, startLogin } from './client.js';
import { startHarness, type Harness } from './harness.js';

describe('login through the git provider', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat', email: 'octo@example.com' });
    h.github.addUser({ login: 'hubot' });
  });
  afterAll(() => h.close());

  it('redirects to the provider with a random state kept in a signed, short-lived cookie', async () => {
    const first = await fetch(`${h.url}/login`, { redirect: 'manual' });
    const second = await fetch(`${h.url}/login`, { redirect: 'manual' });
    expect(first.status).toBe(302);
    const authorize = new URL(first.headers.get('location') ?? '');
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${h.github.url}/login/oauth/authorize`);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${h.url}/login`);
    const state = authorize.searchParams.get('state') ?? '';
    expect(state.length).toBeGreaterThanOrEqual(32);
    expect(new URL(second.headers.get('location') ?? '').searchParams.get('state')).not.toBe(state);
    const [cookie] = first.headers.getSetCookie();
    expect(cookie).toMatch(/^svc_login_state=[^;]+; Max-Age=600; Path=\/login; HttpOnly; SameSite=Lax$/);
  });

  it('creates the user, sets an HttpOnly SameSite=Lax session cookie and redirects to /', async () => {
    const before = Date.now();
    const session = await loginAs(h, 'octocat');
    const sessionCookie = session.setCookies.find((value) => value.startsWith('svc_session='));
    expect(sessionCookie).toMatch(/; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(sessionCookie).not.toMatch(/Secure/);
    const expires = Date.parse(/Expires=([^;]+)/.exec(sessionCookie ?? '')?.[1] ?? '');
    expect(expires).toBeGreaterThan(before + 3_500_000);
    expect(expires).toBeLessThan(Date.now() + 3_700_000);
    const user = await h.store.users.findLogin('octocat');
    expect(user).toMatchObject({ login: 'octocat', email: 'octo@example.com', active: true, admin: false });
    // Only the hash of a token nobody has seen yet: the person makes one to use (rotate).
    expect(user?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(user?.scmToken).not.toBe('');
    expect(user?.lastLogin).toBeGreaterThanOrEqual(before - 1000);
    const me = await call(h, '/api/user', { session });
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ login: 'octocat', email: 'octo@example.com', machine: false });
    expect(me.text).not.toContain(user?.tokenHash ?? 'no token');
    expect(me.text).not.toContain(user?.scmToken ?? 'no token');
  });

  it('updates the provider token of a returning user and keeps their API token', async () => {
    const firstToken = (await h.store.users.findLogin('hubot'))?.tokenHash;
    await loginAs(h, 'hubot');
    const created = await h.store.users.findLogin('hubot');
    await loginAs(h, 'hubot');
    const again = await h.store.users.findLogin('hubot');
    expect(firstToken).toBeUndefined();
    expect(again?.id).toBe(created?.id);
    expect(again?.tokenHash).toBe(created?.tokenHash);
    expect(again?.lastLogin).toBeGreaterThanOrEqual(created?.lastLogin ?? 0);
  });

  it('refuses a callback whose state does not match the cookie, and one without the cookie', async () => {
    const { callback, stateCookie } = await startLogin(h, 'octocat');
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state');
    const mismatch = await fetch(forged, { redirect: 'manual', headers: { cookie: stateCookie } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await mismatch.text()).toContain('This login expired or was not started from this browser');
    const noCookie = await fetch(callback, { redirect: 'manual' });
    expect(noCookie.status).toBe(400);
  });

  it('shows a clear page without a stack trace when the provider refuses the code', async () => {
    const { callback, stateCookie } = await startLogin(h, 'octocat');
    const used = await fetch(callback, { redirect: 'manual', headers: { cookie: stateCookie } });
    expect(used.status).toBe(302);
    // The code is single-use at the provider: the second exchange fails there.
    const replay = await fetch(callback, { redirect: 'manual', headers: { cookie: stateCookie } });
    const page = await replay.text();
    expect(replay.status).toBe(502);
    expect(page).toContain('Login failed:');
    expect(page).not.toMatch(/\bat .+\.(ts|js):\d+/);
  });

  it('reports a denied authorization from the provider', async () => {
    const answer = await fetch(`${h.url}/login?error=access_denied&error_description=The+user+said+no`, {
      redirect: 'manual',
    });
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain('The git provider did not log you in: The user said no.');
  });

  it('logs out with a POST that ends the session on the server, not only in the browser', async () => {
    const session = await loginAs(h, 'octocat');
    const other = await loginAs(h, 'octocat');
    const logout = (body: string) =>
      fetch(`${h.url}/logout`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    // A GET changes nothing: it shows the button that posts.
    const asked = await fetch(`${h.url}/logout`, { headers: { cookie: session.cookie } });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain(`<input type="hidden" name="csrf" value="${session.csrf}">`);
    expect((await call(h, '/api/user', { session })).status).toBe(200);
    // A post from another site (no CSRF token) changes nothing either.
    expect((await logout('')).status).toBe(403);
    expect((await call(h, '/api/user', { session })).status).toBe(200);

    const out = await logout(`csrf=${encodeURIComponent(session.csrf)}`);
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/');
    const cleared = out.headers.getSetCookie();
    expect(cleared.find((value) => value.startsWith('svc_session=;'))).toMatch(/Expires=Thu, 01 Jan 1970/);
    const after = await call(h, '/api/user', { session: { ...session, cookie: cookieHeader(cleared) } });
    expect(after.status).toBe(401);
    // The cookie itself, replayed (kept by an attacker or another browser), ends with it.
    expect((await call(h, '/api/user', { session })).status).toBe(401);
    expect((await call(h, '/api/user', { session: other })).status).toBe(401);
    // Logging in again works, with a new session.
    expect((await call(h, '/api/user', { session: await loginAs(h, 'octocat') })).status).toBe(200);
  });
});

describe('registration rules', () => {
  let closed: Harness;
  let filtered: Harness;
  beforeAll(async () => {
    [closed, filtered] = await Promise.all([
      startHarness({ registrationClosed: true }),
      startHarness({ userFilter: ['Octocat', 'the-org'] }),
    ]);
    for (const h of [closed, filtered]) {
      h.github.addUser({ login: 'octocat' });
      h.github.addUser({ login: 'stranger', orgs: ['other-org'] });
      h.github.addUser({ login: 'colleague', orgs: ['other-org', 'The-Org'] });
    }
  });
  afterAll(async () => {
    await closed.close();
    await filtered.close();
  });

  it('refuses unknown users while registration is closed, and lets existing ones in', async () => {
    const { callback, stateCookie } = await startLogin(closed, 'stranger');
    const refused = await fetch(callback, { redirect: 'manual', headers: { cookie: stateCookie } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Registration is closed: stranger has no account on this server.');
    expect(await closed.store.users.findLogin('stranger')).toBeUndefined();
    await closed.store.users.create({
      login: 'octocat',
      email: '',
      avatar: '',
      machine: false,
      admin: true,
      active: true,
      tokenHash: hashApiToken('f'.repeat(32)),
      scmToken: '',
      scmRefresh: '',
      scmExpiry: 0,
      scmUid: '',
      lastLogin: 0,
    });
    const session = await loginAs(closed, 'octocat');
    expect((await call(closed, '/api/user', { session })).json).toMatchObject({
      login: 'octocat',
      admin: true,
    });
  });

  it('refuses users outside SVC_USER_FILTER with the documented message', async () => {
    const { callback, stateCookie } = await startLogin(filtered, 'stranger');
    const refused = await fetch(callback, { redirect: 'manual', headers: { cookie: stateCookie } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain(USER_FILTER_MESSAGE);
    expect(USER_FILTER_MESSAGE).toBe('Login Failed. User must be a member of an approved organization.');
    expect(await filtered.store.users.findLogin('stranger')).toBeUndefined();
    await loginAs(filtered, 'octocat');
    expect(await filtered.store.users.findLogin('octocat')).toBeDefined();
  });

  it('lets members of an organization SVC_USER_FILTER names register', async () => {
    await loginAs(filtered, 'colleague');
    expect(await filtered.store.users.findLogin('colleague')).toBeDefined();
  });
});
