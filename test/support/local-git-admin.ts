import { call, cookieHeader } from '../api/client.js';
import { waitFor } from '../e2e/system.js';

/**
 * The administrator of a server with the built-in git provider, made as a new user does: the
 * one-time setup link from the server's log, its form, then an API token from the session.
 */
export async function localGitAdmin(
  url: string,
  log: () => string,
  login: string,
  password: string,
): Promise<{ token: string }> {
  const link = await waitFor('the setup link in the log', () =>
    Promise.resolve(/Open (http:\/\/\S+\/setup\?token=[\w-]+)/.exec(log())?.[1]),
  );
  const made = await fetch(`${url}/setup`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      token: new URL(link).searchParams.get('token') ?? '',
      login,
      password,
    }).toString(),
  });
  if (made.status !== 302) throw new Error(`the setup form answered ${made.status}: ${await made.text()}`);
  const setCookies = made.headers.getSetCookie();
  const cookie = cookieHeader(setCookies.filter((value) => !value.startsWith('svc_login_state=')));
  const me = await call({ url }, '/api/user', { session: { cookie, csrf: '', setCookies } });
  const session = { cookie, csrf: (me.json as { csrf: string }).csrf, setCookies };
  const answer = await call({ url }, '/api/user/token?rotate=true', {
    method: 'POST',
    session,
    csrf: session.csrf,
  });
  return { token: (answer.json as { token: string }).token };
}
