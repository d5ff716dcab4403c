import { randomBytes } from 'node:crypto';
import type { User, UserStore } from '../../core/user.js';

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
      token: seed.token ?? randomBytes(16).toString('hex'),
      scmToken: '',
      scmRefresh: '',
      scmExpiry: 0,
      scmUid: '',
      lastLogin: 0,
    });
  }
  const token = seed.token ?? existing.token;
  if (existing.admin === seed.admin && existing.machine === seed.machine && existing.token === token) {
    return existing;
  }
  return users.update({ ...existing, admin: seed.admin, machine: seed.machine, token, updated: now });
}
