/* Test support: an HTTP client for svc that keeps cookies and speaks its JSON API. */
import type { Harness } from './harness.js';

/**
 * A logged-in browser: its cookies and the CSRF token GET /api/user gives it. Rotating the API token
 * sends the session new cookies: tokenOf brings it up to date in place, as a browser would.
 */
export interface BrowserSession {
  cookie: string;
  csrf: string;
  /** The raw Set-Cookie values of the login answer (or of the rotation that renewed the session). */
  setCookies: readonly string[];
}

/** An answer, fully read. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body as JSON (undefined when it is not JSON). */
  readonly json: unknown;
}

/** Sends one request to svc. */
export async function call(
  h: Pick<Harness, 'url'>,
  path: string,
  options: { method?: string; token?: string; session?: BrowserSession; csrf?: string; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.session !== undefined) headers.cookie = options.session.cookie;
  if (options.csrf !== undefined) headers['x-csrf-token'] = options.csrf;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${h.url}${path}`, {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? null : JSON.stringify(options.body),
    redirect: 'manual',
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** `name=value` pairs of Set-Cookie values, as a Cookie header. */
export function cookieHeader(setCookies: readonly string[]): string {
  return setCookies.map((value) => value.split(';')[0] ?? '').join('; ');
}

/** The OAuth round trip up to svc's callback: the callback URL and the login-state cookie. */
export async function startLogin(
  h: Pick<Harness, 'url'>,
  login: string,
): Promise<{ callback: string; stateCookie: string }> {
  const start = await fetch(`${h.url}/login`, { redirect: 'manual' });
  const authorize = start.headers.get('location');
  if (start.status !== 302 || authorize === null) throw new Error(`GET /login answered ${start.status}`);
  const atGitHub = new URL(authorize);
  atGitHub.searchParams.set('login', login);
  const granted = await fetch(atGitHub, { redirect: 'manual' });
  const callback = granted.headers.get('location');
  if (callback === null) throw new Error(`the GitHub double answered ${granted.status}`);
  return { callback, stateCookie: cookieHeader(start.headers.getSetCookie()) };
}

/** Logs `login` in through the GitHub double, as a browser would; fails unless svc accepts it. */
export async function loginAs(h: Pick<Harness, 'url'>, login: string): Promise<BrowserSession> {
  const { callback, stateCookie } = await startLogin(h, login);
  const back = await fetch(callback, { redirect: 'manual', headers: { cookie: stateCookie } });
  if (back.status !== 302) throw new Error(`login of ${login} answered ${back.status}: ${await back.text()}`);
  return sessionOf(h, back);
}

/**
 * Logs in with a username and password, as a browser fills svc's login form (providers without
 * OAuth, such as Gogs): GET /login for the form's state, POST /login with it.
 */
export async function loginWithPassword(
  h: Pick<Harness, 'url'>,
  username: string,
  password: string,
): Promise<BrowserSession> {
  const form = await fetch(`${h.url}/login`);
  const state = /name="state" value="([^"]+)"/.exec(await form.text())?.[1];
  if (form.status !== 200 || state === undefined)
    throw new Error(`GET /login answered ${form.status} without a form`);
  const back = await fetch(`${h.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: cookieHeader(form.headers.getSetCookie()),
    },
    body: new URLSearchParams({ username, password, state }).toString(),
  });
  if (back.status !== 302)
    throw new Error(`POST /login of ${username} answered ${back.status}: ${await back.text()}`);
  return sessionOf(h, back);
}

/** The session a successful login answer set up, with its CSRF token. */
async function sessionOf(h: Pick<Harness, 'url'>, back: Response): Promise<BrowserSession> {
  const setCookies = back.headers.getSetCookie();
  const cookie = cookieHeader(setCookies.filter((value) => !value.startsWith('svc_login_state=')));
  const user = await call(h, '/api/user', { session: { cookie, csrf: '', setCookies } });
  const csrf = (user.json as { csrf?: string } | undefined)?.csrf;
  if (csrf === undefined) throw new Error('GET /api/user gave no csrf');
  return { cookie, csrf, setCookies };
}

/** Tokens tokenOf made, by server and login: svc shows a token once, when made. */
const made = new Map<string, string>();

/**
 * The API token of a logged-in user. svc keeps only hashes, so the first call for a user makes one
 * (POST /api/user/token?rotate=true), which ends the user's other sessions and gives this one new
 * cookies (`session` is updated); later calls for the same user answer the same token.
 */
export async function tokenOf(h: Pick<Harness, 'url'>, session: BrowserSession): Promise<string> {
  const me = await call(h, '/api/user', { session });
  const login = (me.json as { login?: string } | undefined)?.login;
  if (me.status !== 200 || login === undefined) throw new Error(`GET /api/user answered ${me.status}`);
  const known = made.get(`${h.url} ${login}`);
  if (known !== undefined) return known;
  const answer = await call(h, '/api/user/token?rotate=true', {
    method: 'POST',
    session,
    csrf: session.csrf,
  });
  const token = (answer.json as { token?: string } | undefined)?.token;
  if (answer.status !== 200 || token === undefined)
    throw new Error(`POST /api/user/token answered ${answer.status}`);
  const setCookies = answer.headers.getSetCookie();
  const renewed = { ...session, cookie: cookieHeader(setCookies), setCookies };
  const again = await call(h, '/api/user', { session: renewed });
  Object.assign(session, { ...renewed, csrf: (again.json as { csrf?: string }).csrf ?? '' });
  made.set(`${h.url} ${login}`, token);
  return token;
}

/** Enables `owner/name` as the session's user; fails unless svc answers 200. */
export async function enable(
  h: Pick<Harness, 'url'>,
  session: BrowserSession,
  slug: string,
): Promise<Record<string, unknown>> {
  const answer = await call(h, `/api/repos/${slug}`, { method: 'POST', session, csrf: session.csrf });
  if (answer.status !== 200) throw new Error(`enabling ${slug} answered ${answer.status}: ${answer.text}`);
  return answer.json as Record<string, unknown>;
}
