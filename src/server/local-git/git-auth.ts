import type { UserStore } from '../../core/user.js';
import type { ForgeAccount } from '../../scm/local/forge-state.js';
import { hashApiToken } from '../auth/api-token.js';
import { sameText } from '../auth/session-cookies.js';
import { verifyPassword } from '../../scm/local/passwords.js';
import type { LocalGitProvider } from '../../scm/local/provider.js';

/** Where git's credentials are checked. */
export interface GitCredentialDeps {
  readonly provider: Pick<LocalGitProvider, 'state'>;
  /**
   * The provider id (scmUid) of the svc user whose API token this is; undefined for none, or for a
   * user the built-in provider did not make (a machine account of SVC_USER_CREATE, say).
   */
  accountIdOfApiToken(token: string): Promise<string | undefined>;
}

/**
 * The account behind git's HTTP basic credentials: the password of the account named, or an access
 * token as the password (the provider's, from a login; or the account's svc API token) with any
 * user name. Undefined without credentials (anonymous); `refused` for credentials that match none.
 */
export async function authenticateGit(
  header: string | undefined,
  deps: GitCredentialDeps,
): Promise<ForgeAccount | undefined | 'refused'> {
  if (header === undefined) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
  if (match === null) return 'refused';
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const [user, password] = colon < 0 ? [decoded, ''] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
  if (password === '' || password.length > 1024) return 'refused';
  const state = deps.provider.state;
  const byToken = state.accountOfToken(password);
  if (byToken !== undefined) return byToken;
  // By the account's id, never its name: an svc user of the same name is not the account.
  const uid = await deps.accountIdOfApiToken(password);
  const byApiToken = uid === undefined ? undefined : state.accountById(Number(uid));
  if (byApiToken !== undefined) return byApiToken;
  const named = state.account(user);
  if (
    named !== undefined &&
    named.passwordHash !== '' &&
    (await verifyPassword(password, named.passwordHash))
  )
    return named;
  return 'refused';
}

/**
 * The built-in provider's account id of an svc API token: the id stored on the svc user when the
 * account logged in (scmUid), never the user's name — an svc user that merely bears an account's
 * name (a machine account of SVC_USER_CREATE, a renamed user) is not that account.
 */
export function apiTokenAccounts(
  users: Pick<UserStore, 'findTokenHash'>,
): (token: string) => Promise<string | undefined> {
  return async (token) => {
    const hash = hashApiToken(token);
    const user = await users.findTokenHash(hash);
    const valid = user !== undefined && user.active && sameText(user.tokenHash, hash);
    return valid && /^\d+$/.test(user.scmUid) ? user.scmUid : undefined;
  };
}
