import { ConflictError } from '../../core/errors.js';
import type { ScmAccount } from '../../core/scm.js';
import type { User, UserStore } from '../../core/user.js';

/** A login svc refuses, with what to tell the person. */
export class LoginRefused extends Error {}

/** What matching a login to an account reads. */
export type AccountUsers = Pick<UserStore, 'findLogin' | 'findScmUid' | 'update'>;

/**
 * Asks the provider, with an account's own stored credentials, whose they are (undefined when
 * they no longer work): it settles whether an account from before svc knew provider ids belongs to
 * the person logging in.
 */
export type StoredUid = (user: User) => Promise<string | undefined>;

/**
 * The account of the person who just logged in, or undefined for a newcomer. Provider logins can
 * be renamed and the old name registered by someone else, so the provider's immutable id decides:
 * - the account that holds the id is the person's, under whatever name (a rename is followed);
 * - an account under the login without an id (created by an administrator, or before svc stored
 *   ids) is claimed, unless its own stored credentials still work and name someone else;
 * - an account under the login that holds another id is someone else's: the login is refused
 *   with what an administrator can do. Without an id from the provider, the login decides.
 */
export async function accountFor(
  users: AccountUsers,
  account: ScmAccount,
  storedUid?: StoredUid,
): Promise<User | undefined> {
  if (account.uid === '') return users.findLogin(account.login);
  const own = await users.findScmUid(account.uid);
  const holder = own?.login === account.login ? own : await users.findLogin(account.login);
  if (own !== undefined) {
    if (holder !== undefined && holder.id !== own.id) throw nameTaken(holder, account, own.login);
    return own;
  }
  if (holder === undefined) return undefined;
  if (holder.scmUid === '' && !holder.machine) {
    const stored = holder.scmToken === '' ? undefined : await storedUid?.(holder);
    if (stored === undefined || stored === account.uid) return holder;
    await rememberOwner(users, holder, stored);
    throw nameTaken({ ...holder, scmUid: stored }, account);
  }
  if (holder.machine) return holder;
  throw nameTaken(holder, account);
}

/**
 * Stores whose an old account is, as its own credentials just told: its person's next login then
 * finds it by id under their new name. Another account of theirs may hold the id already.
 */
async function rememberOwner(users: AccountUsers, holder: User, uid: string): Promise<void> {
  try {
    await users.update({ ...holder, scmUid: uid });
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
  }
}

function nameTaken(holder: User, account: ScmAccount, ownLogin?: string): LoginRefused {
  const yours = ownLogin === undefined ? '' : ` (your account here is still named “${ownLogin}”)`;
  return new LoginRefused(
    `The account “${holder.login}” on this server belongs to another person at the git provider ` +
      `(provider id ${holder.scmUid}; yours is ${account.uid})${yours}. That person has probably ` +
      `renamed their account, and the name is now yours. An administrator can rename the old account ` +
      `(svc user update ${holder.login} --login NEW-NAME) or delete it (svc user rm ${holder.login}); ` +
      `then log in again.`,
  );
}
