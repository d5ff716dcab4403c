import type { User, UserStore } from '../../core/user.js';
import { hashApiToken, newApiToken } from '../auth/api-token.js';

/** The account of SVC_USER_CREATE. */
export interface UserSeed {
  username: string;
  machine: boolean;
  admin: boolean;
  /** Required (32 characters) for machine accounts; generated for people when absent. */
  token: string | null;
}

/**
 * Makes sure the SVC_USER_CREATE account exists and matches the setting: created when missing;
 * when present, its admin and machine flags and (when given) its token are brought in line, so that
 * changing the setting and restarting rotates a machine token instead of being silently ignored.
 * Only the token's hash is stored; the setting is where the token itself is kept.
 */
export async function seedUser(users: UserStore, seed: UserSeed, now = Date.now()): Promise<User> {
  const existing = await users.findLogin(seed.username);
  if (!existing) {
    return users.create({
      login: seed.username,
      email: '',
      avatar: '',
      machine: seed.machine,
      admin: seed.admin,
      active: true,
      tokenHash: seed.token === null ? newApiToken().hash : hashApiToken(seed.token),
      scmToken: '',
      scmRefresh: '',
      scmExpiry: 0,
      scmUid: '',
      lastLogin: 0,
    });
  }
  const tokenHash = seed.token === null ? existing.tokenHash : hashApiToken(seed.token);
  if (
    existing.admin === seed.admin &&
    existing.machine === seed.machine &&
    existing.tokenHash === tokenHash
  ) {
    return existing;
  }
  return users.update({ ...existing, admin: seed.admin, machine: seed.machine, tokenHash, updated: now });
}
