import { describe, expect, it } from 'vitest';
import { hashApiToken } from './api-token.js';
import { SessionCookies } from './session-cookies.js';

const user = { id: 7, tokenHash: hashApiToken('a'.repeat(32)), sessionGen: 3 };

function cookiesAt(now: { value: number }, options: { secret?: string | null; secure?: boolean } = {}) {
  return new SessionCookies({
    secret: options.secret === undefined ? 'secret' : options.secret,
    timeoutMs: 60_000,
    secure: options.secure ?? false,
    now: () => now.value,
  });
}

const header = (setCookies: readonly string[]) => setCookies.map((c) => c.split(';')[0]).join('; ');

describe('SessionCookies', () => {
  it('reads back a session until SVC_COOKIE_TIMEOUT has passed', () => {
    const now = { value: 1_000_000 };
    const cookies = cookiesAt(now);
    const login = header(cookies.login(user));
    expect(cookies.read(login)).toMatchObject({ userId: 7, expires: 1_060_000 });
    now.value = 1_059_999;
    expect(cookies.read(login)).toBeDefined();
    now.value = 1_060_000;
    expect(cookies.read(login)).toBeUndefined();
  });

  it('rejects sessions signed with another secret, and with none given uses a random one per start', () => {
    const now = { value: 0 };
    const login = header(cookiesAt(now).login(user));
    expect(cookiesAt(now, { secret: 'other' }).read(login)).toBeUndefined();
    const first = cookiesAt(now, { secret: null });
    expect(first.read(header(first.login(user)))).toBeDefined();
    expect(cookiesAt(now, { secret: null }).read(header(first.login(user)))).toBeUndefined();
  });

  it('ties the session to the API token', () => {
    const cookies = cookiesAt({ value: 0 });
    const session = cookies.read(header(cookies.login(user)));
    if (session === undefined) throw new Error('no session');
    expect(cookies.belongsTo(session, user)).toBe(true);
    expect(cookies.belongsTo(session, { ...user, tokenHash: hashApiToken('b'.repeat(32)) })).toBe(false);
    expect(cookies.belongsTo(session, { ...user, id: 8 })).toBe(false);
  });

  it('ties the session to the account’s session generation, which a logout moves on', () => {
    const cookies = cookiesAt({ value: 0 });
    const session = cookies.read(header(cookies.login(user)));
    if (session === undefined) throw new Error('no session');
    expect(session.generation).toBe(3);
    expect(cookies.belongsTo(session, { ...user, sessionGen: 4 })).toBe(false);
  });

  it('marks cookies Secure under https, the session HttpOnly and the CSRF cookie readable', () => {
    const [session, csrf] = cookiesAt({ value: 0 }, { secure: true }).login(user);
    expect(session).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    expect(csrf).toMatch(/; Path=\/; Secure; SameSite=Lax$/);
  });

  it('keeps the login state for ten minutes, on /login only', () => {
    const now = { value: 0 };
    const cookies = cookiesAt(now);
    const { state, cookie } = cookies.startLogin();
    expect(cookie).toContain('; Max-Age=600; Path=/login; HttpOnly');
    expect(cookies.loginState(header([cookie]))).toBe(state);
    now.value = 600_000;
    expect(cookies.loginState(header([cookie]))).toBeUndefined();
  });
});
