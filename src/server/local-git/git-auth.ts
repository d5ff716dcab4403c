import type { ForgeAccount } from '../../scm/local/forge-state.js';
import { verifyPassword } from '../../scm/local/passwords.js';
import type { LocalGitProvider } from '../../scm/local/provider.js';

/** Where git's credentials are checked. */
export interface GitCredentialDeps {
  readonly provider: Pick<LocalGitProvider, 'state'>;
  /** The login of the svc user whose API token this is; undefined for none. */
  loginOfApiToken(token: string): Promise<string | undefined>;
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
  const login = await deps.loginOfApiToken(password);
  const byApiToken = login === undefined ? undefined : state.account(login);
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
