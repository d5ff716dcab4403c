import { SvcError } from '../../core/errors.js';
import type { ScmToken } from '../../core/scm.js';
import type { GogsClient } from './client.js';
import { GOGS } from './errors.js';
import { tokenSchema, userSchema } from './schemas.js';

/**
 * Logs a Gogs user in with their username and password (Gogs has no OAuth applications): the
 * password, sent once with HTTP Basic, lists the user's access tokens, which also checks it.
 * - The token svc kept from the user's last login (`known`) is reused while it works.
 * - A listed token named `tokenName` that still works is reused. Gogs 0.11 and 0.12 list tokens as
 *   they are; 0.13 and later list a hash in their place, which does not work as a token.
 * - Otherwise svc creates one: named `tokenName`, or, when that name is taken by a token svc cannot
 *   read back (0.13+, which also refuses a second token of the same name), `tokenName-<time>`.
 * UNAUTHORIZED for a wrong username or password; the password is never kept.
 */
export async function passwordLogin(
  client: GogsClient,
  tokenName: string,
  username: string,
  password: string,
  known: ScmToken | undefined,
  now = Date.now(),
): Promise<ScmToken> {
  const path = `/users/${encodeURIComponent(username)}/tokens`;
  let listed: { name: string; sha1: string }[];
  try {
    listed = await client.withPassword(username, password, 'GET', path, tokenSchema.array());
  } catch (error) {
    // Gogs answers a wrong password, an unknown user and an account with 2FA alike: 401 or 403.
    if (error instanceof SvcError && (error.code === 'UNAUTHORIZED' || error.code === 'FORBIDDEN')) {
      throw new SvcError('UNAUTHORIZED', `${GOGS}: wrong username or password for ${username}`);
    }
    throw error;
  }
  // The password checked out: a token svc kept from an earlier login may serve again.
  if (known !== undefined && known.token !== '' && (await worksFor(client, known.token, username))) {
    return known;
  }
  const mine = listed.find((token) => token.name === tokenName);
  if (mine !== undefined && (await worksFor(client, mine.sha1, username))) {
    return { token: mine.sha1, refresh: '', expiry: 0 };
  }
  const taken = new Set(listed.map((token) => token.name));
  const name = taken.has(tokenName)
    ? `${tokenName}-${new Date(now).toISOString().replace(/[:.]/g, '-')}`
    : tokenName;
  const created = await client.withPassword(username, password, 'POST', path, tokenSchema, { name });
  return { token: created.sha1, refresh: '', expiry: 0 };
}

/** Whether `token` authenticates as `username` (a listed hash does not authenticate at all). */
async function worksFor(client: GogsClient, token: string, username: string): Promise<boolean> {
  try {
    const user = await client.json(token, 'GET', '/user', userSchema);
    return user.username.toLowerCase() === username.toLowerCase();
  } catch (error) {
    if (error instanceof SvcError && error.code === 'UNAUTHORIZED') return false;
    throw error;
  }
}
