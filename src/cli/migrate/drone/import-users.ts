import { ConflictError } from '../../../core/errors.js';
import type { NewUser } from '../../../core/user.js';
import { hashApiToken, newApiToken } from '../../../server/auth/api-token.js';
import { KEY_FLAG, type ImportContext } from './context.js';
import type { DroneRow } from './database.js';
import { bool, bytes, int, millis, text } from './values.js';

/**
 * Drone's users. Drone keeps no provider id of a person, only the login, so an svc account of the
 * same login is taken to be theirs and left as it is. A new account gets the provider id at its
 * first login: svc then checks, with the provider token brought across here, that the person
 * logging in is the one it belongs to (src/server/auth/account-match.ts). Drone's API token (its
 * `user_hash`) stays valid: svc stores its SHA-256, so `drone` CLI users keep their DRONE_TOKEN.
 */
export async function importUsers(ctx: ImportContext): Promise<void> {
  for (const row of await ctx.drone.select('select * from users order by user_id')) {
    const droneId = int(row, 'user_id');
    const login = text(row, 'user_login');
    ctx.droneLogins.set(droneId, login);
    const existing = await ctx.svc.users.findLogin(login);
    if (existing !== undefined) {
      ctx.users.set(droneId, existing.id);
      ctx.report.present('users');
      continue;
    }
    try {
      const user = await ctx.svc.users.create(newUser(ctx, row, login));
      ctx.users.set(droneId, user.id);
      ctx.report.imported('users');
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      ctx.report.skipped('users', login, `svc refused it: ${error.message}`);
    }
  }
  ctx.progress(ctx.report.line('users'));
}

function newUser(ctx: ImportContext, row: DroneRow, login: string): NewUser {
  const machine = bool(row, 'user_machine');
  const droneToken = text(row, 'user_hash');
  const credentials = providerCredentials(ctx, row, login);
  return {
    login,
    email: text(row, 'user_email'),
    avatar: text(row, 'user_avatar'),
    machine,
    admin: bool(row, 'user_admin'),
    active: bool(row, 'user_active'),
    tokenHash: droneToken === '' ? newApiToken().hash : hashApiToken(droneToken),
    ...credentials,
    scmUid: '',
    lastLogin: millis(row, 'user_last_login'),
  };
}

/** The provider's OAuth token and refresh token; empty (the person logs in again) when they do not decrypt. */
function providerCredentials(
  ctx: ImportContext,
  row: DroneRow,
  login: string,
): Pick<NewUser, 'scmToken' | 'scmRefresh' | 'scmExpiry'> {
  const token = ctx.cipher.open(bytes(row, 'user_oauth_token'));
  const refresh = ctx.cipher.open(bytes(row, 'user_oauth_refresh'));
  if (token.kind === 'sealed' || refresh.kind === 'sealed') {
    ctx.report.note(
      `user ${login}: the provider token does not decrypt with ${KEY_FLAG}; the account is brought across without it, and its person logs in again`,
    );
    return { scmToken: '', scmRefresh: '', scmExpiry: 0 };
  }
  return { scmToken: token.value, scmRefresh: refresh.value, scmExpiry: millis(row, 'user_oauth_expiry') };
}
