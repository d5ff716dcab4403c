import { ConflictError } from '../../core/errors.js';
import type { ScmAccount, ScmToken } from '../../core/scm.js';
import type { User, UserStore } from '../../core/user.js';
import { accountFor, LoginRefused, type AccountUsers, type StoredUid } from './account-match.js';
import { newApiToken } from './api-token.js';

/** Who may register by logging in: SVC_REGISTRATION_CLOSED and SVC_USER_FILTER. */
export interface Admission {
  readonly registrationClosed: boolean;
  /**
   * Logins and organizations whose members may register (SVC_USER_FILTER), matched without regard
   * to case; empty allows everyone.
   */
  readonly userFilter: readonly string[];
}

/** The message SVC_USER_FILTER refusals show, word for word as documented. */
export const USER_FILTER_MESSAGE = 'Login Failed. User must be a member of an approved organization.';

export { LoginRefused };

/**
 * Creates or updates the account of someone who just logged in at the provider: profile, provider
 * credentials, provider id and last login. The account is found by the provider's immutable id,
 * and follows the person's renames (account-match.ts). New accounts get a random API token, which
 * nobody sees (its owner makes a new one to use: POST /api/user/token?rotate=true); registration
 * rules apply to new accounts only, so closing registration never locks out existing users;
 * `created` tells a new account from a returning one. `organizations` gives the person's
 * organizations at the provider; it is asked only when the filter does not name them.
 */
export async function admitUser(
  users: AccountUsers & Pick<UserStore, 'create' | 'update'>,
  account: ScmAccount,
  token: ScmToken,
  admission: Admission,
  now: number,
  organizations: () => Promise<readonly string[]>,
  storedUid?: StoredUid,
): Promise<{ user: User; created: boolean }> {
  const profile = {
    login: account.login,
    scmUid: account.uid,
    email: account.email,
    avatar: account.avatar,
    scmToken: token.token,
    scmRefresh: token.refresh,
    scmExpiry: token.expiry,
    lastLogin: now,
  };
  const existing = await accountFor(users, account, storedUid);
  if (existing !== undefined) {
    return { user: await users.update({ ...check(existing), ...profile, updated: now }), created: false };
  }
  if (admission.registrationClosed) {
    throw new LoginRefused(
      `Registration is closed: ${account.login} has no account on this server. Ask an administrator to create it.`,
    );
  }
  if (!(await passesFilter(admission.userFilter, account.login, organizations))) {
    throw new LoginRefused(USER_FILTER_MESSAGE);
  }
  try {
    const user = await users.create({
      machine: false,
      admin: false,
      active: true,
      tokenHash: newApiToken().hash,
      ...profile,
    });
    return { user, created: true };
  } catch (error) {
    // Two logins of the same new person at once: the second one updates what the first created.
    if (!(error instanceof ConflictError)) throw error;
    const created = await accountFor(users, account, storedUid);
    if (created === undefined) throw error;
    return { user: await users.update({ ...check(created), ...profile, updated: now }), created: false };
  }
}

/** True when the filter is empty, names the login, or names one of the person's organizations. */
async function passesFilter(
  filter: readonly string[],
  login: string,
  organizations: () => Promise<readonly string[]>,
): Promise<boolean> {
  if (filter.length === 0) return true;
  const allowed = new Set(filter.map((name) => name.toLowerCase()));
  if (allowed.has(login.toLowerCase())) return true;
  return (await organizations()).some((org) => allowed.has(org.toLowerCase()));
}

function check(user: User): User {
  if (user.machine)
    throw new LoginRefused(`${user.login} is a machine account: it uses its API token, not a login.`);
  if (!user.active) throw new LoginRefused(`The account ${user.login} is inactive. Ask an administrator.`);
  return user;
}
