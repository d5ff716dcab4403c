import type { User } from '../../../core/user.js';
import { toSeconds as seconds } from '../../../runner/client/wire/convert.js';

/**
 * A user as Drone's API shows it. Neither the API token nor the provider's tokens are part of it:
 * the API token is only given by POST /api/user/token.
 */
export function userJson(user: User): Record<string, unknown> {
  return {
    id: user.id,
    login: user.login,
    email: user.email,
    machine: user.machine,
    admin: user.admin,
    active: user.active,
    avatar: user.avatar,
    last_login: seconds(user.lastLogin),
    created: seconds(user.created),
    updated: seconds(user.updated),
  };
}
