import type { ScmToken } from '../../core/scm.js';
import type { User } from '../../core/user.js';

/** The user's provider credentials, as provider calls take them. */
export function scmTokenOf(user: Pick<User, 'scmToken' | 'scmRefresh' | 'scmExpiry'>): ScmToken {
  return { token: user.scmToken, refresh: user.scmRefresh, expiry: user.scmExpiry };
}
